import type { RequestInfo } from '../request-info.ts';

/**
 * Label helpers that mirror k8s.io/apiserver/pkg/endpoints/metrics/metrics.go, so kapi's series line up
 * with kube-apiserver dashboards and alerts.
 */

/** kube's `component` label on resource requests. */
export const APISERVER_COMPONENT = 'apiserver';
/** kube's verb label for a method it does not know. */
export const OTHER_REQUEST_METHOD = 'other';

/** Verbs kube reports; anything else becomes "other". */
const VALID_REQUEST_METHODS: ReadonlySet<string> = new Set([
  'APPLY',
  'CONNECT',
  'CREATE',
  'DELETE',
  'DELETECOLLECTION',
  'GET',
  'LIST',
  'PATCH',
  'POST',
  'PROXY',
  'PUT',
  'UPDATE',
  'WATCH',
  'WATCHLIST',
]);

/** Subresources whose requests kube reports as CONNECT. */
const VALID_CONNECT_REQUESTS: ReadonlySet<string> = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);

/** types.ApplyPatchType: the only content type kube's CleanVerb turns into APPLY. */
const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

/** CleanScope: "resource" for a named object or a create, else "namespace", "cluster", or "" for non-resource requests. */
export function cleanScope(info: Pick<RequestInfo, 'name' | 'verb' | 'namespace' | 'isResourceRequest'>): string {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  if (info.isResourceRequest) return 'cluster';
  return '';
}

/** CanonicalVerb: tells LIST from GET (and HEAD) by scope; `verb` is upper case. */
export function canonicalVerb(verb: string, scope: string): string {
  if (verb === 'GET' || verb === 'HEAD') return scope !== 'resource' && scope !== '' ? 'LIST' : 'GET';
  return verb;
}

/** The request facts CleanVerb looks at. */
export interface VerbRequest {
  method: string;
  /** The query string as URLSearchParams (only `watch` is read). */
  query: URLSearchParams;
  contentType: string | undefined;
}

/** CleanVerb: WATCH for a GET with a true `watch` parameter, APPLY for apply patches, CONNECT for log/exec/…. */
export function cleanVerbKube(verb: string, req: VerbRequest, info: RequestInfo | undefined): string {
  let reported = verb;
  if (verbIfWatch(req) === 'WATCH') reported = 'WATCH';
  // The legacy WATCHLIST is reported as WATCH so users are not surprised.
  if (verb === 'WATCHLIST') reported = 'WATCH';
  if (verb === 'PATCH' && req.contentType === APPLY_PATCH_TYPE) reported = 'APPLY';
  if (info?.isResourceRequest && info.subresource !== '' && VALID_CONNECT_REQUESTS.has(info.subresource)) reported = 'CONNECT';
  return reported;
}

/**
 * kube's unexported cleanVerb: the verb label of apiserver_request_total and friends. `suggestedVerb` is what
 * kube's route installer passes (WATCH/WATCHLIST for the deprecated /watch/ paths); everything else starts
 * from the HTTP method, made canonical by scope, and unknown verbs collapse into "other".
 */
export function reportedVerb(req: VerbRequest, info: RequestInfo | undefined, suggestedVerb = ''): string {
  if (suggestedVerb === 'WATCH' || suggestedVerb === 'WATCHLIST') return 'WATCH';
  const scope = info ? cleanScope(info) : '';
  const verb = cleanVerbKube(canonicalVerb(req.method.toUpperCase(), scope), req, info);
  return VALID_REQUEST_METHODS.has(verb) ? verb : OTHER_REQUEST_METHOD;
}

/** getVerbIfWatch: a GET whose first `watch` value is not "0"/"false" (Convert_Slice_string_To_bool). */
function verbIfWatch(req: VerbRequest): string {
  const method = req.method.toUpperCase();
  if (method !== 'GET' && method !== 'LIST') return '';
  const first = req.query.getAll('watch')[0];
  if (first === undefined) return '';
  const v = first.toLowerCase();
  return v !== '0' && v !== 'false' ? 'WATCH' : '';
}

/**
 * cleanDryRun: "" without a dryRun parameter, "invalid" if any value is not "All", else the sorted,
 * de-duplicated values joined with commas.
 */
export function cleanDryRun(rawQuery: string, query: URLSearchParams): string {
  if (!rawQuery.includes('dryRun')) return '';
  const values = query.getAll('dryRun');
  if (values.some((v) => v !== 'All')) return 'invalid';
  return [...new Set(values)].sort().join(',');
}
