import {
  type FieldError,
  fieldErrors,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidPathSegmentName,
  nameIsDNSSubdomain,
  OMIT_VALUE,
} from '@kapi/apimachinery';
import { validateLabelSelector } from '@kapi/authz';
import { CEL_RESERVED_WORDS } from '@kapi/cel';
import { validateWebhookService, validateWebhookURL } from '../webhook/webhook-validation.ts';
import type {
  MatchCondition,
  MatchResources,
  MutatingWebhook,
  NamedRuleWithOperations,
  ParamKind,
  ParamRef,
  RuleWithOperations,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicyStatus,
  ValidatingWebhook,
  Validation,
  Variable,
} from './types.ts';

/**
 * kube's pkg/apis/admissionregistration/validation for the v1 kinds, field paths and words included. ObjectMeta is
 * the Store's to check. CEL expressions are compiled by an optional ExpressionChecker (the policy package's
 * compiler): without one only their presence is checked.
 */

/** Which of kube's CEL environments an expression is compiled in. */
export type ExpressionKind = 'matchCondition' | 'validation' | 'messageExpression' | 'auditAnnotation' | 'variable';

export interface ExpressionCheck {
  readonly kind: ExpressionKind;
  /** `params` is declared (a policy with paramKind). */
  readonly params: boolean;
  /** The expression was already stored in the old object (kube compiles it with the StoredExpressions environment). */
  readonly stored: boolean;
  /** The policy's variables, in order, for validations and later variables (kube's composited compiler). */
  readonly variables?: readonly Variable[];
}

/** A compile error of one expression: kube's field.Required (detail only) or field.Invalid (with the expression). */
export interface ExpressionProblem {
  readonly type: 'Required' | 'Invalid' | 'Internal';
  readonly detail: string;
}

/** Compiles one CEL expression as kube's validation does; undefined when it compiles. */
export type ExpressionChecker = (expression: string, check: ExpressionCheck) => ExpressionProblem | undefined;

/** Go's `%#v` of a string slice of type `type` (kube prints list values so). */
function goSlice(type: string, values: readonly unknown[]): string {
  return `${type}{${values.map((v) => JSON.stringify(String(v))).join(', ')}}`;
}

function invalidSlice(field: string, type: string, values: readonly unknown[], detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, badValue: OMIT_VALUE, detail: `${goSlice(type, values)}: ${detail}` };
}

const len = (list: readonly unknown[] | undefined): number => list?.length ?? 0;
const hasWildcard = (list: readonly unknown[] | undefined): boolean => (list ?? []).includes('*');

/** sets.String.List(): sorted. */
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const NO_SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const VALIDATION_REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];
/** AcceptedAdmissionReviewVersions. */
const ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** validation.IsDNS1035Label. */
export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(v) > 63) errs.push('must be no more than 63 characters');
  if (!DNS1035_LABEL_RE.test(v))
    errs.push(
      `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035_LABEL_FMT}')`,
    );
  return errs;
}

/** utilvalidation.IsFullyQualifiedName: a DNS subdomain with at least three segments. */
export function validateFullyQualifiedName(name: string, path: string): FieldError[] {
  if (name.length === 0) return [fieldErrors.required(path, '')];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [fieldErrors.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3)
    return [fieldErrors.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateQualifiedName(value: string, path: string): FieldError[] {
  return isQualifiedName(value).map((msg) => fieldErrors.invalid(path, value, msg));
}

function validateResources(resources: readonly string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = resources ?? [];
  if (list.length === 0) errs.push(fieldErrors.required(path, ''));
  const resourcesWithWildcardSubresources = new Set<string>();
  const subresourcesWithWildcardResource = new Set<string>();
  let hasDoubleWildcard = false;
  let hasSingleWildcard = false;
  let hasResourceWithoutSubresource = false;
  list.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(fieldErrors.required(`${path}[${i}]`, ''));
      return;
    }
    if (resSub === '*/*') hasDoubleWildcard = true;
    if (resSub === '*') hasSingleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      // kube's own quirk: only the last resource without a subresource decides
      hasResourceWithoutSubresource = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (resourcesWithWildcardSubresources.has(res))
      errs.push(fieldErrors.invalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subresourcesWithWildcardResource.has(sub))
      errs.push(fieldErrors.invalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') resourcesWithWildcardSubresources.add(res);
    if (res === '*') subresourcesWithWildcardResource.add(sub);
  });
  if (list.length > 1 && hasDoubleWildcard)
    errs.push(invalidSlice(path, '[]string', list, "if '*/*' is present, must not specify other resources"));
  if (hasSingleWildcard && hasResourceWithoutSubresource)
    errs.push(invalidSlice(path, '[]string', list, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** validateRuleWithOperations (subresources allowed). */
export function validateRuleWithOperations(rule: RuleWithOperations, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = rule.operations ?? [];
  if (ops.length === 0) errs.push(fieldErrors.required(`${path}.operations`, ''));
  if (ops.length > 1 && hasWildcard(ops))
    errs.push(
      invalidSlice(
        `${path}.operations`,
        '[]admissionregistration.OperationType',
        ops,
        "if '*' is present, must not specify other operations",
      ),
    );
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(fieldErrors.notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  if (len(rule.apiGroups) === 0) errs.push(fieldErrors.required(`${path}.apiGroups`, ''));
  if (len(rule.apiGroups) > 1 && hasWildcard(rule.apiGroups))
    errs.push(invalidSlice(`${path}.apiGroups`, '[]string', rule.apiGroups ?? [], "if '*' is present, must not specify other API groups"));
  if (len(rule.apiVersions) === 0) errs.push(fieldErrors.required(`${path}.apiVersions`, ''));
  if (len(rule.apiVersions) > 1 && hasWildcard(rule.apiVersions))
    errs.push(
      invalidSlice(`${path}.apiVersions`, '[]string', rule.apiVersions ?? [], "if '*' is present, must not specify other API versions"),
    );
  (rule.apiVersions ?? []).forEach((v, i) => {
    if (v === '') errs.push(fieldErrors.required(`${path}.apiVersions[${i}]`, ''));
  });
  errs.push(...validateResources(rule.resources, `${path}.resources`));
  if (rule.scope !== undefined && !SCOPES.includes(rule.scope)) errs.push(fieldErrors.notSupported(`${path}.scope`, rule.scope, SCOPES));
  return errs;
}

function validateAdmissionReviewVersions(versions: readonly string[] | undefined, requireRecognized: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = versions ?? [];
  if (list.length < 1) {
    errs.push(fieldErrors.required(path, `must specify one of ${ADMISSION_REVIEW_VERSIONS.join(', ')}`));
    return errs;
  }
  const seen = new Set<string>();
  let hasAccepted = false;
  list.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErrors.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldErrors.invalid(`${path}[${i}]`, v, msg));
    if (ADMISSION_REVIEW_VERSIONS.includes(v)) hasAccepted = true;
  });
  if (requireRecognized && !hasAccepted)
    errs.push(invalidSlice(path, '[]string', list, `must include at least one of ${ADMISSION_REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

function expressionErrors(problem: ExpressionProblem | undefined, path: string, expression: string): FieldError[] {
  if (!problem) return [];
  if (problem.type === 'Required') return [fieldErrors.required(path, problem.detail)];
  if (problem.type === 'Invalid') return [fieldErrors.invalid(path, expression, problem.detail)];
  return [fieldErrors.internal(path, problem.detail)];
}

interface Options {
  ignoreMatchConditions: boolean;
  allowParamsInMatchConditions: boolean;
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
  /** Expressions of the old object (StoredExpressions). */
  preexisting: ReadonlySet<string>;
  checker?: ExpressionChecker;
}

function createOptions(checker: ExpressionChecker | undefined): Options {
  return {
    ignoreMatchConditions: false,
    allowParamsInMatchConditions: false,
    requireNoSideEffects: true,
    requireRecognizedAdmissionReviewVersion: true,
    requireUniqueWebhookNames: true,
    allowInvalidLabelValueInSelector: false,
    preexisting: new Set(),
    checker,
  };
}

function validateMatchConditions(conditions: readonly MatchCondition[] | undefined, opts: Options, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = conditions ?? [];
  if (list.length > 64) errs.push(fieldErrors.tooMany(path, list.length, 64));
  const names = new Set<string>();
  list.forEach((mc, i) => {
    const at = `${path}[${i}]`;
    const expression = (mc.expression ?? '').trim();
    if (expression.length === 0) errs.push(fieldErrors.required(`${at}.expression`, ''));
    else if (opts.checker)
      errs.push(
        ...expressionErrors(
          opts.checker(expression, {
            kind: 'matchCondition',
            params: opts.allowParamsInMatchConditions,
            stored: opts.preexisting.has(mc.expression),
          }),
          `${at}.expression`,
          expression,
        ),
      );
    const name = mc.name ?? '';
    if (name.length === 0) errs.push(fieldErrors.required(`${at}.name`, ''));
    else errs.push(...validateQualifiedName(name, `${at}.name`));
    if (name.length > 0) {
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${at}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}

function validateWebhook(hook: MutatingWebhook, mutating: boolean, opts: Options, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const selectorOpts = { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector };
  errs.push(...validateFullyQualifiedName(hook.name ?? '', `${path}.name`));
  (hook.rules ?? []).forEach((rule, i) => {
    errs.push(...validateRuleWithOperations(rule, `${path}.rules[${i}]`));
  });
  if (hook.failurePolicy !== undefined && !FAILURE_POLICIES.includes(hook.failurePolicy))
    errs.push(fieldErrors.notSupported(`${path}.failurePolicy`, hook.failurePolicy, FAILURE_POLICIES));
  if (hook.matchPolicy !== undefined && !MATCH_POLICIES.includes(hook.matchPolicy))
    errs.push(fieldErrors.notSupported(`${path}.matchPolicy`, hook.matchPolicy, MATCH_POLICIES));
  const allowedSideEffects = opts.requireNoSideEffects ? NO_SIDE_EFFECT_CLASSES : SIDE_EFFECT_CLASSES;
  if (hook.sideEffects === undefined)
    errs.push(fieldErrors.required(`${path}.sideEffects`, `must specify one of ${allowedSideEffects.join(', ')}`));
  else if (!allowedSideEffects.includes(hook.sideEffects))
    errs.push(fieldErrors.notSupported(`${path}.sideEffects`, hook.sideEffects, allowedSideEffects));
  if (hook.timeoutSeconds !== undefined && (hook.timeoutSeconds > 30 || hook.timeoutSeconds < 1))
    errs.push(fieldErrors.invalid(`${path}.timeoutSeconds`, hook.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
  if (hook.namespaceSelector) errs.push(...validateLabelSelector(hook.namespaceSelector, selectorOpts, `${path}.namespaceSelector`));
  if (hook.objectSelector) errs.push(...validateLabelSelector(hook.objectSelector, selectorOpts, `${path}.objectSelector`));
  if (mutating && hook.reinvocationPolicy !== undefined && !REINVOCATION_POLICIES.includes(hook.reinvocationPolicy))
    errs.push(fieldErrors.notSupported(`${path}.reinvocationPolicy`, hook.reinvocationPolicy, REINVOCATION_POLICIES));
  const cc = hook.clientConfig ?? {};
  if ((cc.url === undefined) === (cc.service === undefined))
    errs.push(fieldErrors.required(`${path}.clientConfig`, 'exactly one of url or service is required'));
  else if (cc.url !== undefined) errs.push(...validateWebhookURL(`${path}.clientConfig.url`, cc.url, true));
  else if (cc.service)
    // kube passes (name, namespace) to a function declared (namespace, name); see validateWebhookService.
    errs.push(
      ...validateWebhookService(
        `${path}.clientConfig.service`,
        cc.service.name ?? '',
        cc.service.namespace ?? '',
        cc.service.path,
        cc.service.port ?? 443,
      ),
    );
  if (cc.caBundle !== undefined) errs.push(...validateBase64(cc.caBundle, `${path}.clientConfig.caBundle`));
  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(hook.matchConditions, opts, `${path}.matchConditions`));
  return errs;
}

/**
 * caBundle is []byte: kube-apiserver fails decoding a body whose base64 is bad; kapi reports it as a field of the 422
 * with Go's words.
 */
function validateBase64(value: string, path: string): FieldError[] {
  const bad = /[^A-Za-z0-9+/=\r\n]/.exec(value);
  const stripped = value.replace(/[\r\n]/g, '');
  let at = bad?.index;
  if (at === undefined) {
    const pad = stripped.indexOf('=');
    if (pad >= 0 && !/^=*$/.test(stripped.slice(pad))) at = pad;
    else if (stripped.length % 4 !== 0) at = stripped.length - (stripped.length % 4);
  }
  if (at === undefined) return [];
  return [fieldErrors.invalid(path, OMIT_VALUE, `illegal base64 data at input byte ${at}`)];
}

interface WebhookConfiguration {
  webhooks?: MutatingWebhook[];
}

function validateWebhookConfiguration(c: WebhookConfiguration, mutating: boolean, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (c.webhooks ?? []).forEach((hook, i) => {
    const path = `webhooks[${i}]`;
    errs.push(...validateWebhook(hook, mutating, opts, path));
    errs.push(
      ...validateAdmissionReviewVersions(
        hook.admissionReviewVersions,
        opts.requireRecognizedAdmissionReviewVersion,
        `${path}.admissionReviewVersions`,
      ),
    );
    const name = hook.name ?? '';
    if (opts.requireUniqueWebhookNames && name.length > 0) {
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${path}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}

/** ValidateValidatingWebhookConfiguration / ValidateMutatingWebhookConfiguration (beside ObjectMeta). */
export function validateWebhookConfigurationCreate(c: WebhookConfiguration, mutating: boolean, checker?: ExpressionChecker): FieldError[] {
  return validateWebhookConfiguration(c, mutating, createOptions(checker));
}

const jsonEqual = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function hasInvalidLabelValueInSelector(hooks: readonly ValidatingWebhook[]): boolean {
  for (const h of hooks) {
    if (h.namespaceSelector && validateLabelSelector(h.namespaceSelector, {}, '').length > 0) return true;
    if (h.objectSelector && validateLabelSelector(h.objectSelector, {}, '').length > 0) return true;
  }
  return false;
}

/**
 * The update rules: what the old object already broke may stay broken (side effects, admission review versions,
 * duplicate names, selector label values), and unchanged match conditions are not compiled again.
 */
export function validateWebhookConfigurationUpdate(
  c: WebhookConfiguration,
  old: WebhookConfiguration,
  mutating: boolean,
  checker?: ExpressionChecker,
): FieldError[] {
  const hooks = c.webhooks ?? [];
  const oldHooks = old.webhooks ?? [];
  const names = oldHooks.map((h) => h.name);
  const preexisting = new Set<string>();
  for (const h of oldHooks) for (const mc of h.matchConditions ?? []) preexisting.add(mc.expression);
  return validateWebhookConfiguration(c, mutating, {
    ignoreMatchConditions:
      hooks.length === oldHooks.length && hooks.every((h, i) => jsonEqual(h.matchConditions, oldHooks[i]?.matchConditions)),
    allowParamsInMatchConditions: false,
    requireNoSideEffects: oldHooks.every((h) => h.sideEffects !== undefined && NO_SIDE_EFFECT_CLASSES.includes(h.sideEffects)),
    requireRecognizedAdmissionReviewVersion: oldHooks.every(
      (h) => len(h.admissionReviewVersions) === 0 || (h.admissionReviewVersions ?? []).some((v) => ADMISSION_REVIEW_VERSIONS.includes(v)),
    ),
    requireUniqueWebhookNames: new Set(names).size === names.length,
    allowInvalidLabelValueInSelector: hasInvalidLabelValueInSelector(oldHooks),
    preexisting,
    checker,
  });
}

// ---------------------------------------------------------------------------------------------- policies

function parseGroupVersion(gv: string): { group: string; version: string } | Error {
  if (gv.length === 0 || gv === '/') return { group: '', version: '' };
  const slashes = gv.split('/').length - 1;
  if (slashes === 0) return { group: '', version: gv };
  if (slashes === 1) {
    const i = gv.indexOf('/');
    return { group: gv.slice(0, i), version: gv.slice(i + 1) };
  }
  return new Error(`unexpected GroupVersion string: ${gv}`);
}

function validateParamKind(pk: ParamKind, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = pk.apiVersion ?? '';
  if (apiVersion.length === 0) errs.push(fieldErrors.required(`${path}.apiVersion`, ''));
  else {
    const gv = parseGroupVersion(apiVersion);
    if (gv instanceof Error) errs.push(fieldErrors.invalid(`${path}.apiVersion`, apiVersion, gv.message));
    else {
      if (gv.group.length > 0) {
        const e = isDNS1123Subdomain(gv.group);
        if (e.length > 0) errs.push(fieldErrors.invalid(`${path}.apiVersion`, gv.group, e.join(',')));
      }
      if (gv.version.length === 0) errs.push(fieldErrors.invalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
      else {
        const e = isDNS1035Label(gv.version);
        if (e.length > 0) errs.push(fieldErrors.invalid(`${path}.apiVersion`, gv.version, e.join(',')));
      }
    }
  }
  const kind = pk.kind ?? '';
  if (kind.length === 0) errs.push(fieldErrors.required(`${path}.kind`, ''));
  else {
    const e = isDNS1035Label(kind.toLowerCase());
    if (e.length > 0)
      errs.push(fieldErrors.invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${e.join(',')}`));
  }
  return errs;
}

function validateNamedRule(rule: NamedRuleWithOperations, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (rule.resourceNames ?? []).forEach((name, i) => {
    for (const msg of isValidPathSegmentName(name)) errs.push(fieldErrors.invalid(`${path}.resourceNames[${i}]`, name, msg));
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${path}.resourceNames[${i}]`, name));
    else names.add(name);
  });
  errs.push(...validateRuleWithOperations(rule, path));
  return errs;
}

/** validateMatchResources (selectors strictly: these kinds came after kube's selector ratchet). */
export function validateMatchResources(m: MatchResources | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!m) return errs;
  if (m.matchPolicy === undefined) errs.push(fieldErrors.required(`${path}.matchPolicy`, ''));
  else if (!MATCH_POLICIES.includes(m.matchPolicy))
    errs.push(fieldErrors.notSupported(`${path}.matchPolicy`, m.matchPolicy, MATCH_POLICIES));
  if (m.namespaceSelector === undefined) errs.push(fieldErrors.required(`${path}.namespaceSelector`, ''));
  else errs.push(...validateLabelSelector(m.namespaceSelector, {}, `${path}.namespaceSelector`));
  if (m.objectSelector === undefined) errs.push(fieldErrors.required(`${path}.objectSelector`, ''));
  else errs.push(...validateLabelSelector(m.objectSelector, {}, `${path}.objectSelector`));
  (m.resourceRules ?? []).forEach((r, i) => {
    errs.push(...validateNamedRule(r, `${path}.resourceRules[${i}]`));
  });
  (m.excludeResourceRules ?? []).forEach((r, i) => {
    errs.push(...validateNamedRule(r, `${path}.excludeResourceRules[${i}]`));
  });
  return errs;
}

/** kube's celIdentRegex: a variable name must be a CEL identifier that is not a reserved word. */
const CEL_IDENT_RE = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

function validateVariable(v: Variable, before: readonly Variable[], params: boolean, opts: Options, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = v.name ?? '';
  if (name.trim() === '') errs.push(fieldErrors.required(`${path}.name`, 'name is not specified'));
  else if (!CEL_IDENT_RE.test(name) || CEL_RESERVED_WORDS.has(name))
    errs.push(fieldErrors.invalid(`${path}.name`, name, 'name is not a valid CEL identifier'));
  const expression = v.expression ?? '';
  if (expression.trim() === '') errs.push(fieldErrors.required(`${path}.expression`, 'expression is not specified'));
  else if (opts.checker)
    errs.push(
      ...expressionErrors(
        opts.checker(expression, { kind: 'variable', params, stored: opts.preexisting.has(expression), variables: before }),
        `${path}.expression`,
        expression,
      ),
    );
  return errs;
}

function validateValidation(v: Validation, variables: readonly Variable[], params: boolean, opts: Options, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const expression = v.expression ?? '';
  const message = v.message ?? '';
  const messageExpression = v.messageExpression ?? '';
  if (expression.trim().length === 0) errs.push(fieldErrors.required(`${path}.expression`, 'expression is not specified'));
  else if (opts.checker)
    errs.push(
      ...expressionErrors(
        opts.checker(expression, { kind: 'validation', params, stored: opts.preexisting.has(expression), variables }),
        `${path}.expression`,
        expression,
      ),
    );
  if (messageExpression.length > 0 && messageExpression.trim().length === 0)
    errs.push(fieldErrors.invalid(`${path}.messageExpression`, messageExpression, 'must be non-empty if specified'));
  else if (messageExpression.trim().length !== 0 && opts.checker)
    errs.push(
      ...expressionErrors(
        // kube declares params here only as allowParamsInMatchConditions says (set when paramKind is), and no authorizer
        opts.checker(messageExpression, {
          kind: 'messageExpression',
          params: opts.allowParamsInMatchConditions,
          stored: opts.preexisting.has(messageExpression),
          variables,
        }),
        `${path}.messageExpression`,
        messageExpression,
      ),
    );
  const trimmedMsg = message.trim();
  if (message.length > 0 && trimmedMsg.length === 0)
    errs.push(fieldErrors.invalid(`${path}.message`, message, 'message must be non-empty if specified'));
  else if (/[\n\r]/.test(trimmedMsg)) errs.push(fieldErrors.invalid(`${path}.message`, message, 'message must not contain line breaks'));
  if (v.reason !== undefined && !VALIDATION_REASONS.includes(v.reason))
    errs.push(fieldErrors.notSupported(`${path}.reason`, v.reason, VALIDATION_REASONS));
  return errs;
}

const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024;

function validatePolicy(p: ValidatingAdmissionPolicy, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const spec = p.spec ?? {};
  const path = 'spec';
  if (spec.failurePolicy === undefined) errs.push(fieldErrors.required(`${path}.failurePolicy`, ''));
  else if (!FAILURE_POLICIES.includes(spec.failurePolicy))
    errs.push(fieldErrors.notSupported(`${path}.failurePolicy`, spec.failurePolicy, FAILURE_POLICIES));
  const params = spec.paramKind !== undefined;
  if (spec.paramKind) {
    opts.allowParamsInMatchConditions = true;
    errs.push(...validateParamKind(spec.paramKind, `${path}.paramKind`));
  }
  if (spec.matchConstraints === undefined) errs.push(fieldErrors.required(`${path}.matchConstraints`, ''));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, `${path}.matchConstraints`));
    // at least one resource rule gives the type information
    if (len(spec.matchConstraints.resourceRules) === 0) errs.push(fieldErrors.required(`${path}.matchConstraints.resourceRules`, ''));
  }
  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(spec.matchConditions, opts, `${path}.matchConditions`));
  const variables = spec.variables ?? [];
  variables.forEach((v, i) => {
    errs.push(...validateVariable(v, variables.slice(0, i), params, opts, `${path}.variables[${i}]`));
  });
  if (len(spec.validations) === 0 && len(spec.auditAnnotations) === 0) {
    errs.push(fieldErrors.required(`${path}.validations`, 'validations or auditAnnotations must contain at least one item'));
    errs.push(fieldErrors.required(`${path}.auditAnnotations`, 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  (spec.validations ?? []).forEach((v, i) => {
    errs.push(...validateValidation(v, variables, params, opts, `${path}.validations[${i}]`));
  });
  const annotations = spec.auditAnnotations;
  if (annotations) {
    if (annotations.length > MAX_AUDIT_ANNOTATIONS)
      errs.push({
        type: 'FieldValueInvalid',
        field: `${path}.auditAnnotations`,
        badValue: OMIT_VALUE,
        detail: `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`,
      });
    const keys = new Set<string>();
    annotations.forEach((a, i) => {
      const at = `${path}.auditAnnotations[${i}]`;
      const key = a.key ?? '';
      const policyName = p.metadata?.name ?? '';
      if (policyName.length !== 0) errs.push(...validateQualifiedName(`${policyName}/${key}`, `${at}.key`));
      else errs.push(fieldErrors.invalid(`${at}.key`, key, 'requires metadata.name be non-empty'));
      const value = (a.valueExpression ?? '').trim();
      if (value.length === 0) errs.push(fieldErrors.required(`${at}.valueExpression`, 'valueExpression is not specified'));
      else if (value.length > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH)
        errs.push(
          fieldErrors.required(`${at}.valueExpression`, `must not exceed ${MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length`),
        );
      else if (opts.checker)
        errs.push(
          ...expressionErrors(
            opts.checker(value, { kind: 'auditAnnotation', params, stored: opts.preexisting.has(a.valueExpression), variables }),
            `${at}.valueExpression`,
            a.valueExpression,
          ),
        );
      if (keys.has(key)) errs.push(fieldErrors.duplicate(`${at}.key`, key));
      keys.add(key);
    });
  }
  return errs;
}

/** ValidateValidatingAdmissionPolicy (beside ObjectMeta). */
export function validateValidatingAdmissionPolicy(p: ValidatingAdmissionPolicy, checker?: ExpressionChecker): FieldError[] {
  return validatePolicy(p, createOptions(checker));
}

/** ValidateValidatingAdmissionPolicyUpdate: stored expressions compile in the stored environment; unchanged match conditions are not compiled again. */
export function validateValidatingAdmissionPolicyUpdate(
  p: ValidatingAdmissionPolicy,
  old: ValidatingAdmissionPolicy,
  checker?: ExpressionChecker,
): FieldError[] {
  const os = old.spec ?? {};
  const preexisting = new Set<string>();
  for (const mc of os.matchConditions ?? []) preexisting.add(mc.expression);
  for (const v of os.validations ?? []) {
    preexisting.add(v.expression);
    if (v.messageExpression) preexisting.add(v.messageExpression);
  }
  for (const a of os.auditAnnotations ?? []) preexisting.add(a.valueExpression);
  const ignore = jsonEqual(p.spec?.paramKind, os.paramKind) && jsonEqual(p.spec?.matchConditions, os.matchConditions);
  return validatePolicy(p, { ...createOptions(checker), ignoreMatchConditions: ignore, preexisting });
}

const CONDITION_REASON_RE = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];

/** ValidateValidatingAdmissionPolicyStatusUpdate: type checking warnings and metav1 conditions. */
export function validateValidatingAdmissionPolicyStatus(status: ValidatingAdmissionPolicyStatus | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const path = 'status';
  (status?.typeChecking?.expressionWarnings ?? []).forEach((w, i) => {
    const at = `${path}.typeChecking.expressionWarnings[${i}]`;
    if (!w.warning) errs.push(fieldErrors.required(`${at}.warning`, ''));
    if (!(w.fieldRef ?? '').trim()) errs.push(fieldErrors.required(`${at}.fieldRef`, ''));
  });
  const seen = new Set<string>();
  (status?.conditions ?? []).forEach((c, i) => {
    const at = `${path}.conditions[${i}]`;
    // metav1validation.ValidateConditions: the duplicate first, then ValidateCondition
    if (seen.has(c.type)) errs.push(fieldErrors.duplicate(`${at}.type`, c.type));
    seen.add(c.type);
    errs.push(...validateQualifiedName(c.type ?? '', `${at}.type`));
    if (!CONDITION_STATUSES.includes(c.status)) errs.push(fieldErrors.notSupported(`${at}.status`, c.status, CONDITION_STATUSES));
    if (c.observedGeneration !== undefined && c.observedGeneration < 0)
      errs.push(fieldErrors.invalid(`${at}.observedGeneration`, c.observedGeneration, 'must be greater than or equal to zero'));
    if (!c.lastTransitionTime) errs.push(fieldErrors.required(`${at}.lastTransitionTime`, 'must be set'));
    if (!c.reason) errs.push(fieldErrors.required(`${at}.reason`, 'must be set'));
    else {
      if (!CONDITION_REASON_RE.test(c.reason))
        errs.push(
          fieldErrors.invalid(
            `${at}.reason`,
            c.reason,
            "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')",
          ),
        );
      if (c.reason.length > 1024) errs.push(fieldErrors.tooLong(`${at}.reason`, 1024));
    }
    if ((c.message ?? '').length > 32768) errs.push(fieldErrors.tooLong(`${at}.message`, 32768));
  });
  return errs;
}

// ---------------------------------------------------------------------------------------------- bindings

function validateParamRef(pr: ParamRef | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!pr) return errs;
  const name = pr.name ?? '';
  if (name.length > 0) {
    for (const msg of isValidPathSegmentName(name)) errs.push(fieldErrors.invalid(`${path}.name`, name, msg));
    if (pr.selector) errs.push(fieldErrors.forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (pr.selector) {
    errs.push(...validateLabelSelector(pr.selector, {}, `${path}.selector`));
    if (name.length > 0) errs.push(fieldErrors.forbidden(`${path}.selector`, 'name and selector are mutually exclusive'));
  }
  if (name.length === 0 && !pr.selector) errs.push(fieldErrors.required(path, 'one of name or selector must be specified'));
  const action = pr.parameterNotFoundAction ?? '';
  if (action.length === 0) errs.push(fieldErrors.required(`${path}.parameterNotFoundAction`, ''));
  else if (action !== 'Deny' && action !== 'Allow')
    errs.push(fieldErrors.notSupported(`${path}.parameterNotFoundAction`, action, ['Deny', 'Allow']));
  return errs;
}

function validateValidationActions(actions: readonly string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const list = actions ?? [];
  list.forEach((a, i) => {
    if (!VALIDATION_ACTIONS.includes(a)) errs.push(fieldErrors.notSupported(`${path}[${i}]`, a, VALIDATION_ACTIONS));
    if (seen.has(a)) errs.push(fieldErrors.duplicate(`${path}[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn'))
    errs.push(
      invalidSlice(
        path,
        '[]admissionregistration.ValidationAction',
        list,
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  if (seen.size === 0) errs.push(fieldErrors.required(path, 'at least one validation action is required'));
  return errs;
}

/** ValidateValidatingAdmissionPolicyBinding (beside ObjectMeta); the same on update. */
export function validateValidatingAdmissionPolicyBinding(b: ValidatingAdmissionPolicyBinding): FieldError[] {
  const errs: FieldError[] = [];
  const spec = b.spec ?? {};
  const policyName = spec.policyName ?? '';
  if (policyName.length === 0) errs.push(fieldErrors.required('spec.policyName', ''));
  else for (const msg of nameIsDNSSubdomain(policyName, false)) errs.push(fieldErrors.invalid('spec.policyName', policyName, msg));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  // "matchResouces" is kube's own spelling of this path.
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  errs.push(...validateValidationActions(spec.validationActions, 'spec.validationActions'));
  return errs;
}
