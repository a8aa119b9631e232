import type { IncomingMessage } from 'node:http';

/**
 * The request's headers with every value as a list (node:http's `headersDistinct`). HTTP/2 compatibility requests
 * have no headersDistinct: there it is built from `headers` (HTTP/2 carries repeated fields as arrays or, for
 * most names, joined by node with ", ").
 */
export function distinctHeaders(req: IncomingMessage): NodeJS.Dict<string[]> {
  if (req.headersDistinct) return req.headersDistinct;
  const out: NodeJS.Dict<string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    out[name] = Array.isArray(value) ? value : [value];
  }
  return out;
}
