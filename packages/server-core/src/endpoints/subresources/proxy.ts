import { posix } from 'node:path';
import { goQuote, newBadRequest, newServiceUnavailable, StatusError } from '@kapi/apimachinery';
import type { ProxySubresource, Store } from '@kapi/registry';
import { writeStatus } from '../../filters/write-status.ts';
import { proxyRequest } from '../../proxy/upgrade-aware-proxy.ts';
import type { SubresourceRequest, SubresourceStorage } from '../subresource-storage.ts';

/** The methods kube routes to a connecter (its proxyMethods); others are 405. */
export const CONNECT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** utilnet.SplitSchemeNamePort: `[scheme:]name[:port]`, scheme http, https or none; undefined when invalid. */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name = '';
  let port = '';
  if (parts.length === 1) name = parts[0] as string;
  else if (parts.length === 2) [name, port] = parts as [string, string];
  else if (parts.length === 3) [scheme, name, port] = parts as [string, string, string];
  else return undefined;
  return name && (scheme === '' || scheme === 'http' || scheme === 'https') ? { scheme, name, port } : undefined;
}

/** Go's path.Join: empty elements ignored, the result cleaned (no trailing slash), '' when all are empty. */
function goPathJoin(...elems: string[]): string {
  const parts = elems.filter((e) => e !== '');
  if (parts.length === 0) return '';
  const joined = posix.normalize(posix.join(...parts));
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined;
}

/** The path after `<name>/proxy` in the request's path (kube's ProxyOptions.Path), and the path up to it. */
function splitProxyPath(pathname: string, resource: string): { subpath: string; prefix: string } | undefined {
  const segs = pathname.split('/');
  for (let i = 2; i < segs.length; i++)
    if (segs[i] === 'proxy' && segs[i - 2] === resource)
      return { subpath: segs.slice(i + 1).join('/'), prefix: segs.slice(0, i + 1).join('/') };
  return undefined;
}

/**
 * kube's proxy Transport.rewriteURL for a redirect of the remote: a URL of the remote's own host (or the client's)
 * with an absolute path is made a path under `prefix` (the proxy path), without scheme and host; anything else —
 * another host, a relative path — is left as it is.
 */
export function rewriteProxyLocation(target: string, remoteHost: string, requestHost: string, prefix: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:/i.test(target);
  const parsed = URL.parse(target, 'http://placeholder.invalid');
  if (!parsed) return target;
  const host = absolute || target.startsWith('//') ? parsed.host : '';
  const path = absolute || target.startsWith('//') || target.startsWith('/') ? parsed.pathname : target;
  if ((host !== '' && host !== remoteHost && host !== requestHost) || !path.startsWith('/')) return target;
  const tail = `${parsed.search}${parsed.hash}`;
  // A URL naming the client's own host keeps its scheme and host (kube's transport has none to put instead).
  const origin = host !== '' && host === requestHost ? `${parsed.protocol}//${parsed.host}` : '';
  if (path.startsWith(prefix)) return `${origin}${path}${tail}`;
  let joined = goPathJoin(prefix, path);
  if (path.endsWith('/') && !joined.endsWith('/')) joined += '/';
  return `${origin}${joined}${tail}`;
}

/**
 * kube's proxy REST (pods/proxy, services/proxy, nodes/proxy) for a kind declaring `subresources.proxy`: the object
 * named by `[scheme:]name[:port]` is read, its location asked of the definition, the request's subpath joined to the
 * location's path (a trailing slash kept), and the request proxied there with its query — any method, upgrades
 * included. `GET …/proxy` with an empty path is redirected to `…/proxy/` (kube's hack for issue 4958). Failures
 * to reach it are kube's Status: 503 `error trying to reach service: …`.
 */
export function proxySubresource(store: Store, proxy: ProxySubresource): SubresourceStorage {
  const def = store.definition;
  return {
    ...(proxy.kind ? { kind: proxy.kind } : {}),
    async connect({ ctx, info, context }: SubresourceRequest): Promise<void> {
      const id = splitSchemeNamePort(info.name);
      if (!id) throw newBadRequest(`invalid ${def.singular} request ${goQuote(info.name)}`);
      const obj = await store.get(context, id.name);
      const location = await proxy.location(obj, { scheme: id.scheme, port: id.port });
      const url = new URL(location.url);
      const base = url.pathname === '/' ? '' : url.pathname;
      const split = splitProxyPath(ctx.url.pathname, info.resource);
      const subpath = split?.subpath ?? '';
      let path = goPathJoin(base, subpath);
      if (subpath.endsWith('/') && !path.endsWith('/')) path += '/';
      if (ctx.url.pathname.endsWith('/') && !path.endsWith('/')) path += '/';
      const method = ctx.req.method ?? 'GET';
      if (path === '' && (method === 'GET' || method === 'HEAD')) {
        ctx.res.statusCode = 301;
        ctx.res.setHeader('Location', `${ctx.url.pathname}/${ctx.url.search}`);
        ctx.res.end();
        return;
      }
      url.pathname = path.startsWith('/') ? path : `/${path}`;
      url.search = ctx.url.search;
      // As kube's UpgradeAwareHandler without UseLocationHost: the client's Host goes on.
      const host = ctx.req.headers.host ?? ctx.req.headers[':authority']?.toString() ?? url.host;
      const prefix = split?.prefix ?? ctx.url.pathname;
      await proxyRequest(
        ctx,
        { url, agent: location.agent },
        {
          host,
          rewriteLocation: (target) => rewriteProxyLocation(target, url.host, host, prefix),
          forwarded: { uri: ctx.url.pathname },
          onError: (c, err) => {
            // kube's responder writes the error as a Status: its proxy transport's ServiceUnavailable, else a plain 500.
            const unavailable = err.message.startsWith('error trying to reach service: ');
            writeStatus(c.res, unavailable ? newServiceUnavailable(err.message) : new StatusError({ code: 500, message: err.message }));
          },
        },
      );
    },
  };
}
