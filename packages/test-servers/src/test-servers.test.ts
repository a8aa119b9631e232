import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startEtcd } from './etcd.ts';
import { requireBinary } from './process-server.ts';
import { startRedis } from './redis.ts';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function redisCommand(port: number, cmd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => s.write(`${cmd}\r\n`));
    s.once('data', (d) => {
      s.destroy();
      resolve(d.toString());
    });
    s.once('error', reject);
  });
}

describe('test servers', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  it('a missing binary is an error naming the Debian package, never a skip', () => {
    expect(() => requireBinary('kapi-no-such-binary', 'kapi-pkg')).toThrow(/install the Debian package kapi-pkg/);
  });

  it('starts etcd on a loopback port, survives a kill + restart with its data, and stops by PID', async () => {
    const etcd = await startEtcd();
    cleanups.push(() => etcd.stop());
    const put = await fetch(`${etcd.endpoint}/v3/kv/put`, {
      method: 'POST',
      body: JSON.stringify({ key: Buffer.from('k').toString('base64'), value: Buffer.from('v').toString('base64') }),
    });
    expect(put.ok).toBe(true);
    const pid = etcd.pid as number;
    await etcd.restart();
    expect(processAlive(pid)).toBe(false);
    const got = (await (
      await fetch(`${etcd.endpoint}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('k').toString('base64') }) })
    ).json()) as {
      kvs?: { value: string }[];
    };
    expect(Buffer.from(got.kvs?.[0]?.value ?? '', 'base64').toString()).toBe('v');
    const pid2 = etcd.pid as number;
    await etcd.stop();
    expect(processAlive(pid2)).toBe(false);
  });

  it('starts redis-server on a loopback port and stops it', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    expect(redis.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    expect(await redisCommand(redis.port, 'PING')).toBe('+PONG\r\n');
    const pid = redis.pid as number;
    await redis.stop();
    expect(processAlive(pid)).toBe(false);
  });

  it('a restarted redis-server comes back empty, or with its data when persistent', async () => {
    const plain = await startRedis();
    cleanups.push(() => plain.stop());
    expect(await redisCommand(plain.port, 'SET k v')).toBe('+OK\r\n');
    await plain.restart();
    expect(await redisCommand(plain.port, 'GET k')).toBe('$-1\r\n');

    const kept = await startRedis({ persistent: true });
    cleanups.push(() => kept.stop());
    expect(await redisCommand(kept.port, 'SET k v')).toBe('+OK\r\n');
    await kept.kill();
    expect(kept.pid).toBeUndefined();
    await kept.restart();
    expect(await redisCommand(kept.port, 'GET k')).toBe('$1\r\nv\r\n');
  });
});
