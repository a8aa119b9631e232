import type { ServerResponse } from 'node:http';
import { newResourceExpired } from '@kapi/apimachinery';
import { MESSAGES } from '@kapi/storage';

/**
 * The ERROR event kube writes on a watch whose start is gone from history (etcd compacted it): a 410 Expired Status.
 * Informers (client-go's Reflector, client-node's ListWatch) drop their resourceVersion on it and relist.
 */
export function expiredWatchEvent(): string {
  return `${JSON.stringify({ type: 'ERROR', object: newResourceExpired(MESSAGES.watchExpired).status })}\n`;
}

/**
 * Ends an open watch response: cleanly (the client sees the stream close and watches again from its last
 * resourceVersion), or `expired`, after the 410 ERROR event. Waits for the handler to have sent the headers, so the
 * stream is one the client has established and the handler writes nothing after the end (it stops on `close`).
 */
export async function endWatch(res: ServerResponse, expired: boolean): Promise<void> {
  while (!res.headersSent) {
    if (res.writableEnded || res.destroyed) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (res.writableEnded || res.destroyed) return;
  if (expired) res.write(expiredWatchEvent());
  res.end();
}
