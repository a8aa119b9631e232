import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest port handed out: well above the well-known and registered services most machines run. */
const LOWEST = 10_000;
/** Random candidates tried before falling back to a port the OS picks. */
const TRIES = 50;

/**
 * The lowest port of the range the OS takes the local port of an outgoing connection from (Linux's
 * ip_local_port_range; Linux's default elsewhere), read once. A server port inside that range can be taken by any
 * connection the tests make between the moment it was found free and the moment the server binds it — or while a
 * killed server is down before its restart — which is how an etcd member once failed with "address already in use".
 */
const EPHEMERAL_LOW = ((): number => {
  try {
    const lo = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(lo)) return lo;
  } catch {
    // Not Linux: its default range, which also lies inside macOS's.
  }
  return 32768;
})();

/** Whether a server can listen on `port` of 127.0.0.1 right now (0: any port; resolves to the port, or undefined). */
function listenOn(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : undefined));
    });
  });
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, chosen at random below the ephemeral range so that no outgoing
 * connection takes it before (or between) the uses of the server it is for; the OS's pick when that range leaves no
 * room or every candidate is in use.
 */
export async function freePort(): Promise<number> {
  if (EPHEMERAL_LOW - LOWEST >= 1_000) {
    for (let i = 0; i < TRIES; i++) {
      const port = await listenOn(randomInt(LOWEST, EPHEMERAL_LOW));
      if (port !== undefined) return port;
    }
  }
  const port = await listenOn(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
}
