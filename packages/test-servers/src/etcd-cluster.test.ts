import { afterAll, describe, expect, it } from 'vitest';
import { type EtcdCluster, startEtcdCluster } from './etcd-cluster.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

async function put(url: string, key: string, value: string): Promise<void> {
  const res = await fetch(`${url}/v3/kv/put`, { method: 'POST', body: JSON.stringify({ key: b64(key), value: b64(value) }) });
  if (!res.ok) throw new Error(`put ${res.status}: ${await res.text()}`);
}

async function get(url: string, key: string): Promise<string | undefined> {
  // serializable=false: a linearizable read, answered only with a quorum.
  const res = await fetch(`${url}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: b64(key) }) });
  const body = (await res.json()) as { kvs?: { value: string }[] };
  const v = body.kvs?.[0]?.value;
  return v === undefined ? undefined : Buffer.from(v, 'base64').toString();
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startEtcdCluster', () => {
  let cluster: EtcdCluster | undefined;
  afterAll(async () => {
    await cluster?.stop();
  });

  it('starts 3 members; a killed leader is replaced, the others serve, and a restarted member catches up from its data dir', async () => {
    cluster = await startEtcdCluster({ members: 3 });
    expect(cluster.endpoints).toHaveLength(3);
    expect(new Set(cluster.endpoints).size).toBe(3);
    for (const e of cluster.endpoints) expect(e).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    await put(cluster.endpoints[0] as string, 'a', '1');
    for (const e of cluster.endpoints) expect(await get(e, 'a')).toBe('1');

    const leader = await cluster.leader();
    const pid = leader.pid as number;
    await leader.kill();
    expect(leader.pid).toBeUndefined();
    expect(processAlive(pid)).toBe(false);

    const next = await cluster.leader();
    expect(next.name).not.toBe(leader.name);
    const live = cluster.members.filter((m) => m !== leader);
    await put(live[0]?.clientURL as string, 'b', '2');
    expect(await get(live[1]?.clientURL as string, 'b')).toBe('2');

    await leader.start();
    expect(leader.pid).toBeGreaterThan(0);
    // It rejoins with its old data and receives what it missed.
    expect(await get(leader.clientURL, 'a')).toBe('1');
    expect(await get(leader.clientURL, 'b')).toBe('2');

    // A clean stop of a follower leaves a quorum.
    const follower = cluster.members.find((m) => m.name !== next.name) as (typeof cluster.members)[number];
    await follower.stop();
    expect(follower.pid).toBeUndefined();
    await put(next.clientURL, 'c', '3');
    await follower.start();
    expect(await get(follower.clientURL, 'c')).toBe('3');

    const pids = cluster.members.map((m) => m.pid as number);
    await cluster.stop();
    cluster = undefined;
    for (const p of pids) expect(processAlive(p)).toBe(false);
  });
});
