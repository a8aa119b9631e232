import { Agent, createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedServingCertificate } from '@kapi/server-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteGetError, remoteGet } from './remote-get.ts';

let server: Server;
let base: string;
const agent = new Agent({ rejectUnauthorized: false });
const timers: NodeJS.Timeout[] = [];

beforeAll(async () => {
  const cert = await selfSignedServingCertificate({ hosts: ['localhost'] });
  server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    if (req.url === '/drip') {
      // A byte now and then, forever: no idle timeout ever fires.
      res.write('{');
      timers.push(setInterval(() => res.write(' '), 20));
    } else if (req.url === '/silent') {
      // Never answers.
    } else if (req.url === '/endless') {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    } else res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const t of timers) clearInterval(t);
  agent.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('remoteGet', () => {
  it('reads a document', async () => {
    const res = await remoteGet(new URL('/doc', base), agent, {});
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('{"ok":true}');
  });

  it("ends a remote that trickles its body or never answers at the deadline, in Go's words", async () => {
    await expect(remoteGet(new URL('/drip', base), agent, {}, { timeoutMs: 200 })).rejects.toThrow(
      new RemoteGetError(`Get "${base}/drip": context deadline exceeded (Client.Timeout or context cancellation while reading body)`),
    );
    await expect(remoteGet(new URL('/silent', base), agent, {}, { timeoutMs: 200 })).rejects.toThrow(
      new RemoteGetError(`Get "${base}/silent": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`),
    );
  });

  it('refuses a body over the cap, and with headOnly never reads it', async () => {
    await expect(remoteGet(new URL('/endless', base), agent, {}, { maxBytes: 1024 * 1024 })).rejects.toThrow(
      `Get "${base}/endless": response body larger than 1048576 bytes`,
    );
    expect((await remoteGet(new URL('/endless', base), agent, {}, { headOnly: true })).status).toBe(200);
  });

  it("says Go's dial error", async () => {
    await expect(remoteGet(new URL('https://127.0.0.1:1/x'), agent, {})).rejects.toThrow(
      'Get "https://127.0.0.1:1/x": dial tcp 127.0.0.1:1: connect: connection refused',
    );
  });
});
