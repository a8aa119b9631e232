import type { Duplex } from 'node:stream';
import type { Status } from '@kapi/apimachinery';

const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * node:http's 'clientError' listener: a request node could not parse (headers over the size limit, a malformed
 * request line, a header timeout) never reaches the chain, and node's own answer is a bare status line. This one is a
 * Status like every other refusal, then the connection closes (the stream can no longer be parsed).
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const code = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: code === 400 ? `malformed HTTP request: ${err.code ?? err.message}` : (REASON_PHRASES[code] as string),
    ...(code === 400 ? { reason: 'BadRequest' as const } : {}),
    code,
  } as Status;
  const body = JSON.stringify(status);
  // The answer to a HEAD has no body (its client would take the bytes for a next response); the request line, if it
  // came, is at the start of what node read.
  const raw = (err as { rawPacket?: Buffer }).rawPacket;
  const isHead = raw !== undefined && raw.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    `HTTP/1.1 ${code} ${REASON_PHRASES[code]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${isHead ? '' : body}`,
  );
}
