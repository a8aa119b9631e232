import { isValidPathSegmentName, parseFieldSelector, parseLabelSelector } from '@kapi/apimachinery';

/**
 * What a request is about, computed as kube-apiserver's RequestInfoFactory does
 * (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go). Authorization, audit and the
 * watch/long-running checks all key off these fields, so they must match kube exactly.
 */
export interface RequestInfo {
  /** True for /{prefix}[/{group}]/{version}/... with at least one part after the version. */
  isResourceRequest: boolean;
  /** The percent-decoded URL path (Go's req.URL.Path). */
  path: string;
  /** Kube verb (get, list, watch, create, …) for resource requests; the lower-case HTTP method otherwise. */
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path parts from {resource} on: resource/name/subresource/…; empty for non-resource requests. */
  parts: string[];
}

export interface RequestInfoResolverOptions {
  /** First path segments that start an API, without slashes. Default ['api', 'apis']. */
  apiPrefixes?: Iterable<string>;
  /** Those of apiPrefixes followed by a group segment; the rest are groupless like /api. Default ['apis']. */
  groupedApiPrefixes?: Iterable<string>;
}

/**
 * Thrown where kube's NewRequestInfo returns an error (e.g. `/api/v1/watch` with nothing after the verb);
 * kube's WithRequestInfo filter answers such requests with a 500. `info` is what was known at that point.
 */
export class RequestInfoError extends Error {
  readonly info: RequestInfo;
  constructor(message: string, info: RequestInfo) {
    super(message);
    this.name = 'RequestInfoError';
    this.info = info;
  }
}

// Path segments that are actions rather than resources: /api/v1/watch/pods, /api/v1/proxy/nodes/n.
const SPECIAL_VERBS = new Set(['proxy', 'watch']);
// proxy keeps everything after the name as an opaque subpath, never a subresource.
const SPECIAL_VERBS_NO_SUBRESOURCES = new Set(['proxy']);
// /namespaces/{ns}/status is the namespace's subresource, not a resource named "status" inside ns.
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

// A Map, not an object literal, so a method named e.g. "constructor" cannot hit a prototype property.
const METHOD_VERBS: ReadonlyMap<string, string> = new Map([
  ['POST', 'create'],
  ['GET', 'get'],
  ['HEAD', 'get'],
  ['PUT', 'update'],
  ['PATCH', 'patch'],
  ['DELETE', 'delete'],
]);

export class RequestInfoResolver {
  readonly #apiPrefixes: ReadonlySet<string>;
  readonly #groupedApiPrefixes: ReadonlySet<string>;

  constructor(options: RequestInfoResolverOptions = {}) {
    this.#apiPrefixes = new Set(options.apiPrefixes ?? ['api', 'apis']);
    this.#groupedApiPrefixes = new Set(options.groupedApiPrefixes ?? ['apis']);
  }

  /**
   * `url` is the request target as Node gives it (`/path?query`); an absolute-form target is accepted too.
   * Throws RequestInfoError where kube's resolver fails.
   */
  resolve(method: string, url: string): RequestInfo {
    const { path, rawQuery } = splitTarget(url);
    const info: RequestInfo = {
      isResourceRequest: false,
      path,
      verb: method.toLowerCase(),
      apiPrefix: '',
      apiGroup: '',
      apiVersion: '',
      namespace: '',
      resource: '',
      subresource: '',
      name: '',
      parts: [],
    };

    let parts = splitPath(path);
    if (parts.length < 3) return info;
    const prefix = parts[0] as string;
    if (!this.#apiPrefixes.has(prefix)) return info;
    info.apiPrefix = prefix;
    parts = parts.slice(1);

    if (this.#groupedApiPrefixes.has(prefix)) {
      // The prefix is consumed already, so this asks for four parts in all: /apis/{group}/{version}/{resource}.
      if (parts.length < 3) return info;
      info.apiGroup = parts[0] as string;
      parts = parts.slice(1);
    }

    info.isResourceRequest = true;
    info.apiVersion = parts[0] as string;
    parts = parts.slice(1);

    const first = parts[0] as string;
    if (SPECIAL_VERBS.has(first)) {
      if (parts.length < 2) throw new RequestInfoError(`unable to determine kind and namespace from url, ${url}`, info);
      info.verb = first;
      parts = parts.slice(1);
    } else {
      info.verb = METHOD_VERBS.get(method) ?? '';
    }

    if (parts[0] === 'namespaces') {
      if (parts.length > 1) {
        info.namespace = parts[1] as string;
        // /namespaces/{ns}/{resource}/… re-roots at the resource; /namespaces/{ns}[/status] stays on namespaces.
        if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2] as string)) parts = parts.slice(2);
      }
    }
    info.parts = parts;

    // resource/name/subresource/anything/else/uninterpreted
    if (parts.length >= 3 && !SPECIAL_VERBS_NO_SUBRESOURCES.has(info.verb)) info.subresource = parts[2] as string;
    if (parts.length >= 2) info.name = parts[1] as string;
    if (parts.length >= 1) info.resource = parts[0] as string;

    if (info.name === '' && info.verb === 'get') {
      const query = parseQuery(rawQuery);
      const watch = query.get('watch');
      info.verb = watch !== undefined && queryBool(watch[0] as string) ? 'watch' : 'list';
      // kube names single-object lists/watches (fieldSelector=metadata.name=x) so authz can scope them,
      // but only when the whole ListOptions decodes; any bad parameter leaves the name empty.
      const name = listOptionsName(query);
      if (name !== undefined && isValidPathSegmentName(name).length === 0) info.name = name;
    }
    if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
    return info;
  }
}

/** Splits a request target into Go's URL.Path (percent-decoded) and RawQuery. */
function splitTarget(url: string): { path: string; rawQuery: string } {
  let target = url;
  // Absolute-form (GET http://host/p): drop scheme and authority as Go's request URI parsing does.
  const abs = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?]*/.exec(target);
  if (abs) target = target.slice(abs[0].length);
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  const rawQuery = q < 0 ? '' : target.slice(q + 1);
  return { path: goUnescape(rawPath, false) ?? rawPath, rawQuery };
}

/** kube's splitPath: trim every leading/trailing '/', then split; inner empty segments are kept. */
function splitPath(path: string): string[] {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 0x2f) start++;
  while (end > start && path.charCodeAt(end - 1) === 0x2f) end--;
  if (start === end) return [];
  return path.slice(start, end).split('/');
}

const utf8Decoder = new TextDecoder();
const utf8Encoder = new TextEncoder();
const HEX2 = /^[0-9a-fA-F]{2}$/;

/**
 * Go's url unescape. In a path an invalid escape is kept literally (Go's server would have rejected the
 * request with 400 before any filter; we stay lenient rather than misclassify). In a query it returns
 * undefined so the pair is dropped, as url.ParseQuery does.
 */
function goUnescape(s: string, query: boolean): string | undefined {
  if (!s.includes('%') && !(query && s.includes('+'))) return s;
  const bytes: number[] = [];
  let literalFrom = 0;
  const flush = (to: number): void => {
    if (to > literalFrom) for (const b of utf8Encoder.encode(s.slice(literalFrom, to))) bytes.push(b);
  };
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      const hex = s.slice(i + 1, i + 3);
      if (HEX2.test(hex)) {
        flush(i);
        bytes.push(Number.parseInt(hex, 16));
        i += 3;
        literalFrom = i;
        continue;
      }
      if (query) return undefined;
    } else if (c === 0x2b && query) {
      flush(i);
      bytes.push(0x20);
      literalFrom = ++i;
      continue;
    }
    i++;
  }
  flush(s.length);
  return utf8Decoder.decode(Uint8Array.from(bytes));
}

/** url.ParseQuery: '&'-separated, values kept in order per key, malformed pairs (';' in key, bad escape) skipped. */
function parseQuery(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (raw === '') return out;
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    if (rawKey.includes(';')) continue;
    const key = goUnescape(rawKey, true);
    const value = goUnescape(eq < 0 ? '' : pair.slice(eq + 1), true);
    if (key === undefined || value === undefined) continue;
    const list = out.get(key);
    if (list) list.push(value);
    else out.set(key, [value]);
  }
  return out;
}

/** runtime.Convert_Slice_string_To_bool: only "false" and "0" (any case) are false; even "" is true. */
function queryBool(v: string): boolean {
  const lower = v.toLowerCase();
  return lower !== 'false' && lower !== '0';
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64) succeeds. */
function isInt64(s: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(s)) return false;
  const n = BigInt(s);
  return n >= INT64_MIN && n <= INT64_MAX;
}

/**
 * Decodes the query as metainternalversion.ListOptions would (first value of each parameter) and returns the
 * field selector's required metadata.name; undefined if there is none or any parameter fails to decode.
 */
function listOptionsName(query: Map<string, string[]>): string | undefined {
  const first = (k: string): string | undefined => query.get(k)?.[0];
  for (const k of ['limit', 'timeoutSeconds']) {
    const v = first(k);
    if (v !== undefined && !isInt64(v)) return undefined;
  }
  const labels = first('labelSelector');
  const fields = first('fieldSelector');
  try {
    if (labels) parseLabelSelector(labels);
    return fields ? parseFieldSelector(fields).requiresExactMatch('metadata.name') : undefined;
  } catch {
    return undefined;
  }
}
