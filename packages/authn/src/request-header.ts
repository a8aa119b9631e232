import type { IncomingHttpHeaders } from 'node:http';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';
import type { CABundle } from './ca-bundle.ts';
import { ClientCertificateVerifier } from './client-certificate-verifier.ts';
import { subjectValues } from './peer-certificates.ts';
import type { UserInfo } from './user-info.ts';

/** Which headers carry the front proxy's identity (kube's --requestheader-*-headers flags). */
export interface RequestHeaderNames {
  /** Default ['X-Remote-User']; the first one with a non-empty value names the user. */
  usernameHeaders?: readonly string[];
  /** Default ['X-Remote-Uid']. */
  uidHeaders?: readonly string[];
  /** Default ['X-Remote-Group']; every value of every one is a group. */
  groupHeaders?: readonly string[];
  /** Default ['X-Remote-Extra-']; `<prefix><key>: value` is extra[key]. */
  extraHeaderPrefixes?: readonly string[];
}

/** kube's standard front-proxy headers, removed from every authenticated request whatever is configured. */
export const STANDARD_REQUEST_HEADERS: Required<RequestHeaderNames> = {
  usernameHeaders: ['X-Remote-User'],
  uidHeaders: ['X-Remote-Uid'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
};

export interface RequestHeaderAuthenticatorOptions extends RequestHeaderNames {
  /** The CA a front proxy's client certificate must chain to (kube's --requestheader-client-ca-file). */
  ca: CABundle;
  /** Common names the proxy's certificate may have (kube's --requestheader-allowed-names); empty or absent = any. */
  allowedNames?: readonly string[];
  /** Milliseconds since the epoch; default Date.now. */
  now?: () => number;
}

/** The lower-case header names and extra prefixes of a {@link RequestHeaderNames}, built once (start-up) and matched per request. */
export interface RequestHeaderNameSet {
  headers: ReadonlySet<string>;
  prefixes: readonly string[];
}

/**
 * The names of the headers `names` uses (lower-case) and its extra prefixes (lower-case): what
 * {@link clearRequestHeaders} removes.
 */
export function requestHeaderNames(names: RequestHeaderNames = {}): RequestHeaderNameSet {
  const n = withDefaults(names);
  return {
    headers: new Set([...n.usernameHeaders, ...n.uidHeaders, ...n.groupHeaders].map((h) => h.toLowerCase())),
    prefixes: n.extraHeaderPrefixes.map((p) => p.toLowerCase()),
  };
}

/** The headers of `headers` that `set` names (exactly or by prefix). */
export function headersIn(headers: IncomingHttpHeaders, set: RequestHeaderNameSet): string[] {
  return Object.keys(headers).filter((h) => set.headers.has(h) || set.prefixes.some((p) => h.startsWith(p)));
}

/**
 * kube's ClearAuthenticationHeaders: the headers in `names` (and every header starting with one of its prefixes)
 * that `headers` holds, which the caller removes so nothing after authentication trusts or forwards them.
 */
export function requestHeadersToClear(headers: IncomingHttpHeaders, names: RequestHeaderNames = {}): string[] {
  return headersIn(headers, requestHeaderNames(names));
}

/** Removes the headers of {@link requestHeadersToClear} from `headers`. */
export function clearRequestHeaders(headers: IncomingHttpHeaders, names: RequestHeaderNames = {}): void {
  removeHeaders(headers, requestHeaderNames(names));
}

function removeHeaders(headers: IncomingHttpHeaders, set: RequestHeaderNameSet): void {
  for (const h of headersIn(headers, set)) delete headers[h];
}

function withDefaults(names: RequestHeaderNames): Required<RequestHeaderNames> {
  return {
    usernameHeaders: names.usernameHeaders ?? STANDARD_REQUEST_HEADERS.usernameHeaders,
    uidHeaders: names.uidHeaders ?? STANDARD_REQUEST_HEADERS.uidHeaders,
    groupHeaders: names.groupHeaders ?? STANDARD_REQUEST_HEADERS.groupHeaders,
    extraHeaderPrefixes: names.extraHeaderPrefixes ?? STANDARD_REQUEST_HEADERS.extraHeaderPrefixes,
  };
}

/**
 * Every header as a list of its field values, lower-case names. From `headersDistinct` when the request has it:
 * node joins repeated custom fields in `headers` with ', ', and kube reads each field line as one value.
 */
function headerLists(req: Pick<AuthenticationRequest, 'headers' | 'headersDistinct'>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, v] of Object.entries(req.headersDistinct ?? req.headers)) {
    if (v === undefined) continue;
    out.set(name.toLowerCase(), Array.isArray(v) ? v : [v]);
  }
  return out;
}

/** kube's unescapeExtraKey: %-unescaped (url.PathUnescape); a key that does not unescape is kept as sent. */
function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/**
 * The identity the front proxy's headers carry (kube's requestHeaderAuthRequestHandler), with no check of who sent
 * them: null when no username header has a value.
 */
export function userFromRequestHeaders(
  req: Pick<AuthenticationRequest, 'headers' | 'headersDistinct'>,
  names: RequestHeaderNames = {},
): UserInfo | null {
  const n = withDefaults(names);
  const lists = headerLists(req);
  const values = (name: string): string[] => lists.get(name.toLowerCase()) ?? [];
  let name = '';
  for (const h of n.usernameHeaders) {
    name = values(h).find((v) => v !== '') ?? '';
    if (name !== '') break;
  }
  if (name === '') return null;
  let uid = '';
  for (const h of n.uidHeaders) {
    uid = values(h).find((v) => v !== '') ?? '';
    if (uid !== '') break;
  }
  const groups = n.groupHeaders.flatMap((h) => values(h));
  const extra: Record<string, string[]> = {};
  const prefixes = n.extraHeaderPrefixes.map((p) => p.toLowerCase());
  for (const header of lists.keys()) {
    for (const prefix of prefixes) {
      if (!header.startsWith(prefix)) continue;
      // kube lower-cases, then unescapes (so %-escapes can carry upper-case and '/' in keys).
      const key = unescapeExtraKey(header.slice(prefix.length).toLowerCase());
      extra[key] = [...(extra[key] ?? []), ...values(header)];
    }
  }
  return { name, ...(uid !== '' ? { uid } : {}), groups, ...(Object.keys(extra).length ? { extra } : {}) };
}

/**
 * kube's front-proxy authenticator (request header authenticator behind an x509 verifier): the identity in
 * X-Remote-User / X-Remote-Group / X-Remote-Extra-* (names configurable) is believed only from a connection whose
 * client certificate chains to the request-header CA (for client auth) and whose CN is allowed. A request without
 * a client certificate or without a username header has no opinion; a certificate that does not verify or whose
 * CN is not allowed fails, as kube's. Whatever the outcome the authentication filter removes these headers
 * ({@link clearRequestHeaders}), so nothing later sees headers a client made up.
 */
export class RequestHeaderAuthenticator implements Authenticator {
  readonly #options: RequestHeaderAuthenticatorOptions;
  readonly #verifier: ClientCertificateVerifier;
  readonly #clear: RequestHeaderNameSet;

  constructor(options: RequestHeaderAuthenticatorOptions) {
    this.#options = options;
    this.#verifier = new ClientCertificateVerifier(options.ca, options.now);
    this.#clear = requestHeaderNames(options);
  }

  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
    // kube verifies the proxy before it reads the headers.
    const chain = this.#verifier.verify(req.socket);
    const leaf = chain?.[0];
    if (!leaf) return null;
    const allowed = this.#options.allowedNames ?? [];
    if (allowed.length > 0) {
      const cn = subjectValues(leaf, 'CN')[0] ?? '';
      if (!allowed.includes(cn)) throw new Error(`x509: subject with cn=${cn} is not in the allowed list`);
    }
    const user = userFromRequestHeaders(req, this.#options);
    if (!user) return null;
    removeHeaders(req.headers, this.#clear);
    if (req.headersDistinct) removeHeaders(req.headersDistinct as IncomingHttpHeaders, this.#clear);
    return { user };
  }
}
