/**
 * The part of Go's net/url that kube's CEL URL library uses: url.ParseRequestURI (validation, as the OpenAPI
 * "uri" format does), url.Parse, and the URL getters. WHATWG URL (node's `URL`) normalizes and accepts
 * different inputs, so rules would answer differently than on kube; this follows Go's parser instead.
 * Error texts are Go's (`parse "<url>": <reason>`).
 */

export class GoURLError extends Error {
  override readonly name = 'GoURLError';
}

export interface GoURL {
  readonly scheme: string;
  readonly opaque: string;
  readonly user: string | undefined;
  /** host or host:port, unescaped */
  readonly host: string;
  readonly path: string;
  readonly rawPath: string;
  readonly rawQuery: string;
  readonly fragment: string;
}

type Mode = 'path' | 'host' | 'query' | 'fragment' | 'userPassword';

export function parseRequestURI(rawURL: string): GoURL {
  return wrap(rawURL, () => parse(rawURL, true));
}

export function parseURL(rawURL: string): GoURL {
  return wrap(rawURL, () => {
    const hash = rawURL.indexOf('#');
    const u = parse(hash < 0 ? rawURL : rawURL.slice(0, hash), false);
    return hash < 0 ? u : { ...u, fragment: urlUnescape(rawURL.slice(hash + 1), 'fragment') };
  });
}

function wrap(rawURL: string, f: () => GoURL): GoURL {
  try {
    return f();
  } catch (e) {
    if (e instanceof GoURLError) throw new GoURLError(`parse ${goQuote(rawURL)}: ${e.message}`);
    throw e;
  }
}

function parse(rawURL: string, viaRequest: boolean): GoURL {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Go refuses ASCII control bytes in URLs
  if (/[\x00-\x1f\x7f]/.test(rawURL)) throw new GoURLError('net/url: invalid control character in URL');
  if (rawURL === '' && viaRequest) throw new GoURLError('empty url');
  const empty = { scheme: '', opaque: '', user: undefined, host: '', path: '', rawPath: '', rawQuery: '', fragment: '' };
  if (rawURL === '*') return { ...empty, path: '*' };

  let [scheme, rest] = getScheme(rawURL);
  scheme = scheme.toLowerCase();
  let rawQuery = '';
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return { ...empty, scheme, opaque: rest, rawQuery };
    if (viaRequest) throw new GoURLError('invalid URI for request');
    const colon = rest.indexOf(':');
    const slash = rest.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash)) throw new GoURLError('first path segment in URL cannot contain colon');
  }
  let user: string | undefined;
  let host = '';
  if ((scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!validUserinfo(userinfo)) throw new GoURLError('net/url: invalid userinfo');
      user = userinfo;
    }
    host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  }
  const path = urlUnescape(rest, 'path');
  const rawPath = urlEscape(path, 'path') === rest ? '' : rest;
  return { ...empty, scheme, user, host, path, rawPath, rawQuery };
}

function getScheme(rawURL: string): [string, string] {
  for (let i = 0; i < rawURL.length; i++) {
    const c = rawURL[i] as string;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return ['', rawURL];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new GoURLError('missing protocol scheme');
      return [rawURL.slice(0, i), rawURL.slice(i + 1)];
    }
    return ['', rawURL];
  }
  return ['', rawURL];
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new GoURLError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new GoURLError(`invalid port ${goQuote(colonPort)} after host`);
    return urlUnescape(host, 'host');
  }
  const colon = host.lastIndexOf(':');
  if (colon >= 0) {
    const colonPort = host.slice(colon);
    if (!validOptionalPort(colonPort)) throw new GoURLError(`invalid port ${goQuote(colonPort)} after host`);
  }
  return urlUnescape(host, 'host');
}

function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

function validUserinfo(s: string): boolean {
  return /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);
}

const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** url.unescape: %XX sequences to bytes (UTF-8), '+' to space in query components. */
function urlUnescape(s: string, mode: Mode): string {
  if (!s.includes('%') && !(mode === 'query' && s.includes('+'))) return s;
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === '%') {
      if (!isHex(s[i + 1]) || !isHex(s[i + 2])) {
        const bad = s.slice(i, i + 3);
        throw new GoURLError(`invalid URL escape ${goQuote(bad)}`);
      }
      bytes.push(Number.parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === '+' && mode === 'query') bytes.push(0x20);
    else for (const b of encoder.encode(c)) bytes.push(b);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function shouldEscape(c: string, mode: Mode): boolean {
  if (/[a-zA-Z0-9]/.test(c)) return false;
  if (mode === 'host') return !/[!$&'()*+,;=:[\]<>"]/.test(c) && !'-_.~'.includes(c);
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    if (mode === 'path') return c === '?';
    if (mode === 'userPassword') return c === '@' || c === '/' || c === '?' || c === ':';
    if (mode === 'query') return true;
    if (mode === 'fragment') return false;
  }
  if (mode === 'fragment' && '!()*'.includes(c)) return false;
  return true;
}

/** url.escape for one mode, byte by byte over UTF-8. */
function urlEscape(s: string, mode: Mode): string {
  let out = '';
  for (const ch of s) {
    if (ch.length === 1 && ch.charCodeAt(0) < 0x80 && !shouldEscape(ch, mode)) out += ch;
    else if (ch === ' ' && mode === 'query') out += '+';
    else for (const b of new TextEncoder().encode(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** validEncoded(s, encodePath): RawPath is used only when it is a valid encoding. */
function validEncoded(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]".includes(c)) continue;
    if (c === '%') continue;
    if (shouldEscape(c, 'path')) return false;
  }
  return true;
}

export function escapedPath(u: GoURL): string {
  if (u.rawPath !== '' && validEncoded(u.rawPath)) {
    try {
      if (urlUnescape(u.rawPath, 'path') === u.path) return u.rawPath;
    } catch {
      // an invalid RawPath falls back to escaping Path, as Go does
    }
  }
  if (u.path === '*') return '*';
  return urlEscape(u.path, 'path');
}

/** URL.Hostname: the host without port, IPv6 without brackets. */
export function hostname(u: GoURL): string {
  return splitHostPort(u.host)[0];
}

export function port(u: GoURL): string {
  return splitHostPort(u.host)[1];
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let p = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon))) {
    p = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, p];
}

/** url.ParseQuery, keeping what parses and skipping the rest (as URL.Query does). */
export function query(u: GoURL): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const part of u.rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    const [rawKey, rawValue] = eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)];
    let key: string;
    let value: string;
    try {
      key = urlUnescape(rawKey, 'query');
      value = urlUnescape(rawValue, 'query');
    } catch {
      continue;
    }
    const values = result.get(key);
    if (values) values.push(value);
    else result.set(key, [value]);
  }
  return result;
}

/** strconv.Quote for the ASCII-printable strings these messages carry; others escaped like Go. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
