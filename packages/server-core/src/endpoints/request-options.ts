import { type FieldError, fieldErrors, newBadRequest, newInvalid, OMIT_VALUE, type StatusError } from '@kapi/apimachinery';
import {
  FIELD_MANAGER_MAX_LENGTH,
  type FieldValidation,
  isPrintable,
  managerOrUserAgent,
  type PatchType,
  type PropagationPolicy,
  type StoreDeleteOptions,
  type StoreListOptions,
  type StoreWatchOptions,
} from '@kapi/registry';

/**
 * Query parameters and DeleteOptions bodies, parsed as kube-apiserver's parameter codec and option validation
 * do: malformed values are 400 BadRequest, values outside the allowed set are 422 Invalid on the options kind
 * (CreateOptions.meta.k8s.io, …).
 */

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** strconv.ParseBool, as metav1's parameter conversion uses it. */
export function parseBoolParam(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (GO_TRUE.has(v)) return true;
  if (GO_FALSE.has(v) || v === '') return false;
  throw newBadRequest(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

function parseIntParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw newBadRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw newBadRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return n;
}

function invalidOptions(kind: string, errs: FieldError[]): StatusError {
  return newInvalid({ group: 'meta.k8s.io', kind }, '', errs);
}

const RV_MATCH = ['Exact', 'NotOlderThan'] as const;

/** ListOptions (list, watch and deletecollection). */
export function listOptionsOf(q: URLSearchParams): StoreListOptions & { watch: boolean } {
  const out: StoreListOptions & { watch: boolean } = { watch: parseBoolParam(q, 'watch') ?? false };
  const labelSelector = q.get('labelSelector');
  if (labelSelector) out.labelSelector = labelSelector;
  const fieldSelector = q.get('fieldSelector');
  if (fieldSelector) out.fieldSelector = fieldSelector;
  const limit = parseIntParam(q, 'limit');
  if (limit !== undefined) out.limit = limit;
  const cont = q.get('continue');
  if (cont) out.continue = cont;
  const rv = q.get('resourceVersion');
  if (rv !== null) out.resourceVersion = rv;
  const match = q.get('resourceVersionMatch');
  if (match) {
    if (!(RV_MATCH as readonly string[]).includes(match))
      throw invalidOptions('ListOptions', [fieldErrors.notSupported('resourceVersionMatch', match, [...RV_MATCH, ''])]);
    out.resourceVersionMatch = match as (typeof RV_MATCH)[number];
  }
  return out;
}

/** The watch-only parameters. */
export function watchOptionsOf(
  q: URLSearchParams,
): Pick<StoreWatchOptions, 'allowWatchBookmarks' | 'sendInitialEvents' | 'timeoutSeconds'> {
  const out: Pick<StoreWatchOptions, 'allowWatchBookmarks' | 'sendInitialEvents' | 'timeoutSeconds'> = {};
  const bookmarks = parseBoolParam(q, 'allowWatchBookmarks');
  if (bookmarks !== undefined) out.allowWatchBookmarks = bookmarks;
  if (q.has('sendInitialEvents')) out.sendInitialEvents = parseBoolParam(q, 'sendInitialEvents') ?? false;
  const timeout = parseIntParam(q, 'timeoutSeconds');
  if (timeout !== undefined) out.timeoutSeconds = timeout;
  return out;
}

export interface WriteOptions {
  dryRun: boolean;
  fieldValidation?: FieldValidation;
  fieldManager?: string;
  /** PatchOptions.force (apply patches only): take the fields other managers own. */
  force?: boolean;
}

/** metav1 validation's allowed values, sorted as sets.List returns them (and as its message lists them). */
const FIELD_VALIDATION = ['', 'Ignore', 'Strict', 'Warn'];

/**
 * ValidateDryRun: one error for the whole list when any value is not "All", its value printed as Go's `%#v` of
 * a []string (`Unsupported value: []string{"Foo"}: supported values: "All"`).
 */
function dryRunErrors(values: readonly string[]): FieldError[] {
  if (values.every((v) => v === 'All')) return [];
  const goSlice = `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
  return [{ type: 'FieldValueNotSupported', field: 'dryRun', badValue: OMIT_VALUE, detail: `${goSlice}: supported values: "All"` }];
}

/** ValidateFieldManager: at most 128 bytes, every character printable (`invalid character U+0009 (at position 2)`, a byte offset). */
function fieldManagerErrors(fieldManager: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(fieldManager, 'utf8') > FIELD_MANAGER_MAX_LENGTH)
    errs.push(fieldErrors.tooLong('fieldManager', FIELD_MANAGER_MAX_LENGTH));
  let at = 0;
  for (const ch of fieldManager) {
    if (!isPrintable(ch)) {
      const code = (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      errs.push(fieldErrors.invalid('fieldManager', fieldManager, `invalid character U+${code} (at position ${at})`));
    }
    at += Buffer.byteLength(ch, 'utf8');
  }
  return errs;
}

/**
 * CreateOptions / UpdateOptions / PatchOptions: dryRun, fieldManager, fieldValidation, and for a patch `force`.
 * `patchType` (PatchOptions): kube's ValidatePatchOptions — `force` only with an apply patch, which needs a fieldManager.
 */
export function writeOptionsOf(
  q: URLSearchParams,
  kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
  patchType?: PatchType,
): WriteOptions {
  // Checked in ValidatePatchOptions' order: force or a missing fieldManager, then fieldManager, dryRun, fieldValidation.
  const errs: FieldError[] = [];
  const fieldManager = q.get('fieldManager') ?? undefined;
  const force = kind === 'PatchOptions' ? parseBoolParam(q, 'force') : undefined;
  if (kind === 'PatchOptions' && patchType !== undefined) {
    if (patchType !== 'apply') {
      if (force !== undefined) errs.push(fieldErrors.forbidden('force', 'may not be specified for non-apply patch'));
    } else if (!fieldManager) {
      errs.push(fieldErrors.required('fieldManager', 'is required for apply patch'));
    }
  }
  if (fieldManager !== undefined) errs.push(...fieldManagerErrors(fieldManager));
  const dryRun = q.getAll('dryRun');
  errs.push(...dryRunErrors(dryRun));
  const fv = q.get('fieldValidation') ?? '';
  if (!FIELD_VALIDATION.includes(fv)) errs.push(fieldErrors.notSupported('fieldValidation', fv, FIELD_VALIDATION));
  if (errs.length) throw invalidOptions(kind, errs);
  return {
    dryRun: dryRun.length > 0,
    ...(fv ? { fieldValidation: fv as FieldValidation } : {}),
    ...(fieldManager !== undefined ? { fieldManager } : {}),
    ...(force !== undefined ? { force } : {}),
  };
}

/**
 * The manager a write records in managedFields: its fieldManager parameter, else the User-Agent up to its first "/"
 * (kube's managerOrUserAgent).
 */
export function fieldManagerOf(ctx: { req: { headers: { 'user-agent'?: string | undefined } } }, w: WriteOptions): string {
  return managerOrUserAgent(w.fieldManager, ctx.req.headers['user-agent']);
}

const POLICIES: readonly PropagationPolicy[] = ['Orphan', 'Background', 'Foreground'];

interface DeleteOptionsBody {
  gracePeriodSeconds?: unknown;
  propagationPolicy?: unknown;
  orphanDependents?: unknown;
  preconditions?: { uid?: unknown; resourceVersion?: unknown } | null;
  dryRun?: unknown;
}

/**
 * DeleteOptions from the body (JSON, any apiVersion of DeleteOptions) or, when the body is empty, the query;
 * a body wins over the query as in kube-apiserver.
 */
export function deleteOptionsOf(q: URLSearchParams, body: Uint8Array | undefined): StoreDeleteOptions {
  let src: DeleteOptionsBody = {};
  if (body?.byteLength) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body).toString('utf8'));
    } catch (err) {
      throw newBadRequest(
        `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml: ${(err as Error).message}`,
      );
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw newBadRequest('DeleteOptions must be a JSON object');
    src = parsed as DeleteOptionsBody;
  } else {
    const grace = parseIntParam(q, 'gracePeriodSeconds');
    const policy = q.get('propagationPolicy');
    const orphan = parseBoolParam(q, 'orphanDependents');
    src = {
      ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}),
      ...(policy ? { propagationPolicy: policy } : {}),
      ...(orphan !== undefined ? { orphanDependents: orphan } : {}),
      ...(q.getAll('dryRun').length ? { dryRun: q.getAll('dryRun') } : {}),
    };
  }
  const errs: FieldError[] = [];
  const out: StoreDeleteOptions = {};
  if (src.gracePeriodSeconds !== undefined && src.gracePeriodSeconds !== null) {
    if (typeof src.gracePeriodSeconds !== 'number' || !Number.isInteger(src.gracePeriodSeconds))
      throw newBadRequest('gracePeriodSeconds must be an integer');
    out.gracePeriodSeconds = src.gracePeriodSeconds;
  }
  if (src.propagationPolicy !== undefined && src.propagationPolicy !== null && src.propagationPolicy !== '') {
    const p = String(src.propagationPolicy);
    if (!(POLICIES as readonly string[]).includes(p)) errs.push(fieldErrors.notSupported('propagationPolicy', p, [...POLICIES]));
    else out.propagationPolicy = p as PropagationPolicy;
  }
  if (src.orphanDependents !== undefined && src.orphanDependents !== null) {
    if (out.propagationPolicy)
      errs.push(
        fieldErrors.invalid('propagationPolicy', out.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'),
      );
    else out.propagationPolicy = src.orphanDependents === true ? 'Orphan' : 'Background';
  }
  const pre = src.preconditions;
  if (pre && typeof pre === 'object') {
    out.preconditions = {
      ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
      ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
    };
  }
  if (src.dryRun !== undefined && src.dryRun !== null) {
    const values = Array.isArray(src.dryRun) ? src.dryRun.map(String) : [String(src.dryRun)];
    errs.push(...dryRunErrors(values));
    if (values.length) out.dryRun = true;
  }
  if (errs.length) throw invalidOptions('DeleteOptions', errs);
  return out;
}
