import type { KubeObject } from '@kapi/apimachinery';

/**
 * What kube's decoding does to an admissionregistration/v1 body before validation: nulls read as absent (Go's zero
 * values), empty `omitempty` lists and strings dropped, then pkg/apis/admissionregistration/v1's defaults.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Lists Go writes without `omitempty` (an empty one stays). */
const KEEP_EMPTY = new Set(['admissionReviewVersions']);

/** Drops nulls, empty lists (but admissionReviewVersions) and empty caBundle, below the top level's metadata. */
function normalize(v: unknown): void {
  if (Array.isArray(v)) {
    for (const item of v) normalize(item);
    return;
  }
  if (!isObj(v)) return;
  for (const [k, child] of Object.entries(v)) {
    if (child === null || (Array.isArray(child) && child.length === 0 && !KEEP_EMPTY.has(k)) || (k === 'caBundle' && child === ''))
      delete v[k];
    else normalize(child);
  }
}

export function normalizeBody(obj: KubeObject): void {
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'metadata' || k === 'apiVersion' || k === 'kind') continue;
    if (v === null) delete (obj as Obj)[k];
    else normalize(v);
  }
}

function setDefault(o: Obj, key: string, value: unknown): void {
  if (o[key] === undefined) o[key] = value;
}

/** SetDefaults_Rule: scope "*". */
function defaultRules(rules: unknown): void {
  if (Array.isArray(rules)) for (const r of rules) if (isObj(r)) setDefault(r, 'scope', '*');
}

/** SetDefaults_ValidatingWebhook / SetDefaults_MutatingWebhook (v1: sideEffects and admissionReviewVersions have none). */
function defaultWebhook(w: unknown, mutating: boolean): void {
  if (!isObj(w)) return;
  setDefault(w, 'failurePolicy', 'Fail');
  setDefault(w, 'matchPolicy', 'Equivalent');
  setDefault(w, 'namespaceSelector', {});
  setDefault(w, 'objectSelector', {});
  setDefault(w, 'timeoutSeconds', 10);
  if (mutating) setDefault(w, 'reinvocationPolicy', 'Never');
  defaultRules(w.rules);
  // SetDefaults_ServiceReference
  const cc = w.clientConfig;
  if (isObj(cc) && isObj(cc.service)) setDefault(cc.service, 'port', 443);
}

export function defaultWebhookConfiguration(obj: KubeObject, mutating: boolean): void {
  normalizeBody(obj);
  const hooks = (obj as Obj).webhooks;
  if (Array.isArray(hooks)) for (const w of hooks) defaultWebhook(w, mutating);
}

/** SetDefaults_MatchResources: matchPolicy Equivalent, selectors {}; then each rule's scope. */
function defaultMatchResources(m: unknown): void {
  if (!isObj(m)) return;
  setDefault(m, 'matchPolicy', 'Equivalent');
  setDefault(m, 'namespaceSelector', {});
  setDefault(m, 'objectSelector', {});
  defaultRules(m.resourceRules);
  defaultRules(m.excludeResourceRules);
}

/** Drops the `omitempty` strings of `o` that are empty (Go writes no such field). */
function omitEmptyStrings(o: unknown, keys: readonly string[]): void {
  if (!isObj(o)) return;
  for (const k of keys) if (o[k] === '') delete o[k];
}

export function defaultValidatingAdmissionPolicy(obj: KubeObject): void {
  normalizeBody(obj);
  // kube decodes a missing (or null) spec as an empty struct, which then gets its defaults; one of another type never
  // gets here: decoding refuses it (the Store's decodeBody), as kube's does.
  const o = obj as Obj;
  if (!isObj(o.spec)) o.spec = {};
  const spec = o.spec as Obj;
  omitEmptyStrings(spec.paramKind, ['apiVersion', 'kind']);
  if (Array.isArray(spec.validations)) for (const v of spec.validations) omitEmptyStrings(v, ['message', 'messageExpression']);
  setDefault(spec, 'failurePolicy', 'Fail');
  defaultMatchResources(spec.matchConstraints);
}

export function defaultValidatingAdmissionPolicyBinding(obj: KubeObject): void {
  normalizeBody(obj);
  const o = obj as Obj;
  if (!isObj(o.spec)) o.spec = {};
  const spec = o.spec as Obj;
  omitEmptyStrings(spec, ['policyName']);
  omitEmptyStrings(spec.paramRef, ['name', 'namespace', 'parameterNotFoundAction']);
  defaultMatchResources(spec.matchResources);
}
