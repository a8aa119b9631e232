import type { RequestContext } from '@kapi/server-core';

type UserInfo = NonNullable<RequestContext['user']>;

/** Bytes Go's textproto allows in a header name (RFC 7230 token characters). */
const TOKEN = /^[!#$&'*+\-.^_`|~0-9A-Za-z]$/;

/**
 * client-go's headerKeyEscape: a user's extra key in an `X-Remote-Extra-<key>` header name, each byte that is not a
 * token character (or is `%`) written `%XX` in upper-case hex, as the request-header authenticator unescapes it.
 */
export function headerKeyEscape(key: string): string {
  let out = '';
  for (const b of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && TOKEN.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * client-go's SetAuthProxyHeaders on a proxied request's headers (lower-case names): the caller's credentials go
 * (Authorization, Impersonate-*: the aggregator has already acted on them) and so do any X-Remote-* the client sent;
 * the authenticated user follows as X-Remote-User, X-Remote-Uid (when set; kube's RemoteRequestHeaderUID, on by
 * default since 1.33), one X-Remote-Group per group and one X-Remote-Extra-<escaped key> per extra value.
 */
export function setAuthProxyHeaders(headers: Record<string, string | string[]>, user: UserInfo): void {
  for (const name of Object.keys(headers))
    if (
      name === 'authorization' ||
      name.startsWith('impersonate-') ||
      name === 'x-remote-user' ||
      name === 'x-remote-uid' ||
      name === 'x-remote-group' ||
      name.startsWith('x-remote-extra-')
    )
      delete headers[name];
  headers['x-remote-user'] = user.name;
  if (user.uid) headers['x-remote-uid'] = user.uid;
  if (user.groups.length > 0) headers['x-remote-group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {}))
    if (values.length > 0) {
      const name = `x-remote-extra-${headerKeyEscape(key)}`;
      const prior = headers[name];
      headers[name] = prior === undefined ? [...values] : [...[prior].flat(), ...values];
    }
}

/** Go's url.QueryEscape: space as `+`, everything but letters, digits and `-_.~` percent-encoded. */
const queryEscape = (s: string): string =>
  encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');

/**
 * Go's url.Values.Encode of a query (kube-aggregator forwards `req.URL.Query().Encode()`): keys sorted, each pair
 * QueryEscape'd.
 */
export function goQueryEncode(params: URLSearchParams): string {
  const keys = [...new Set(params.keys())].sort();
  return keys.flatMap((k) => params.getAll(k).map((v) => `${queryEscape(k)}=${queryEscape(v)}`)).join('&');
}
