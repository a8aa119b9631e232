import { StatusError } from '@kapi/apimachinery';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, type DiscoverySource } from '../../discovery/documents.ts';
import type { Handler } from '../../filters/context.ts';
import { writeStatus } from '../../filters/write-status.ts';

/**
 * Test-only legacy discovery (/api, /api/v1, /apis, /apis/<g>, /apis/<g>/<v>) as plain JSON, enough for kubectl's
 * RESTMapper; anything else is a 404 Status. The real server's discovery routes live elsewhere.
 */
export function discoveryRoute(source: DiscoverySource): Handler {
  return async ({ url, req, res }) => {
    const parts = url.pathname.split('/').filter((p) => p !== '');
    let doc: unknown;
    if (parts[0] === 'api' && parts.length === 1) doc = apiVersions(req.headers.host ?? '127.0.0.1');
    else if (parts[0] === 'api' && parts.length === 2) doc = apiResourceList(source, parts[1] as string);
    else if (parts[0] === 'apis' && parts.length === 1) doc = apiGroupList(source);
    else if (parts[0] === 'apis' && parts.length === 2) doc = apiGroup(source, parts[1] as string);
    else if (parts[0] === 'apis' && parts.length === 3) doc = apiResourceList(source, `${parts[1]}/${parts[2]}`);
    if (doc === undefined) {
      writeStatus(
        res,
        new StatusError({ code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', details: {} }),
      );
      return;
    }
    const body = JSON.stringify(doc);
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json');
    res.end(body);
  };
}
