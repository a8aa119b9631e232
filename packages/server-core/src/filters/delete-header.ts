import type { IncomingMessage } from 'node:http';

/**
 * Removes a header (lower-case name) from what later filters and handlers read: `req.headers` and, when Node
 * has already built it, `req.headersDistinct`. kube deletes credentials and impersonation headers this way once
 * they have been used, so nothing further down (a proxy, a webhook) forwards them.
 */
export function deleteRequestHeader(req: IncomingMessage, name: string): void {
  delete req.headers[name];
  delete (req.headersDistinct as Record<string, string[] | undefined>)[name];
}
