import type { ServerResponse } from 'node:http';
import type { StatusError } from '@kapi/apimachinery';

/** Writes a StatusError as a metav1.Status JSON body with its code (and Retry-After when it has one). */
export function writeStatus(res: ServerResponse, err: StatusError): void {
  if (res.headersSent) {
    // The response is already under way; a Status can't be spliced in, so cut the connection.
    res.destroy();
    return;
  }
  const body = JSON.stringify(err.status);
  res.statusCode = err.code;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  const retry = err.retryAfterSeconds;
  if (retry) res.setHeader('Retry-After', String(retry));
  res.end(body);
}
