import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toStatusError } from '@kapi/apimachinery';
import { answerClientError } from './client-error.ts';
import { createRequestContext, type Handler } from './context.ts';
import { drainUnreadBodyAfterResponse } from './request-drain.ts';
import { writeStatus } from './write-status.ts';

/** Adapts a (composed) handler to node:http; errors escaping the chain still become a Status. */
export function toRequestListener(handler: Handler): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const ctx = createRequestContext(req, res);
    drainUnreadBodyAfterResponse(ctx);
    handler(ctx).then(
      () => {
        if (!res.writableEnded && !res.headersSent) res.end();
      },
      (err: unknown) => {
        try {
          writeStatus(res, toStatusError(err));
        } catch {
          // The Status itself cannot be written (the failure is in writing the response): cut the connection rather
          // than leave the client waiting.
          res.destroy();
        }
      },
    );
  };
}

export interface Listening {
  /** e.g. http://127.0.0.1:34567 */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** Serves a handler over node:http (port 0 = any free port); `close` also drops keep-alive connections. */
export async function listen(handler: Handler, port = 0, host = '127.0.0.1'): Promise<Listening> {
  const server = createServer(toRequestListener(handler));
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  return {
    url: `http://${host}:${addr.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
