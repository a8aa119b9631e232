import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from './free-port.ts';

const listen = (port: number) =>
  new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });

describe('freePort', () => {
  it('answers a port a server can listen on, outside the range outgoing connections take theirs from', async () => {
    const range = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    const ports = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port < (range[0] as number) || port > (range[1] as number)).toBe(true);
      expect(port).toBeGreaterThanOrEqual(10_000);
      ports.add(port);
    }
    // Chosen at random: twenty calls do not keep answering the same few ports.
    expect(ports.size).toBeGreaterThan(15);
    const srv = await listen([...ports][0] as number);
    srv.close();
  });
});
