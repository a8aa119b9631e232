import type { Socket } from 'node:net';

/**
 * Cuts a client's connection with a TCP reset, so the client sees ECONNRESET as when a server or proxy dies, rather
 * than an orderly close. A TLS socket cannot be reset from Node (its handle is not the TCP one): it is destroyed,
 * which the client sees as the connection closed mid-response.
 */
export function resetConnection(socket: Socket): void {
  if (socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}
