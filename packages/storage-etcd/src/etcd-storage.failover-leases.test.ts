import type { Status } from '@kapi/apimachinery';
import { isStorageError } from '@kapi/storage';
import type { EtcdMember } from '@kapi/test-servers';
import { describe, expect, it } from 'vitest';
import { dir, useFailoverCluster, widget } from './test-support/failover-cluster.ts';
import { brief, readUntil } from './test-support/read-until.ts';

// Failover on a real 3-member etcd cluster: members are killed (SIGKILL) and started again, or paused (SIGSTOP).
const failover = useFailoverCluster();
const { storage } = failover;

describe('EtcdStorage on a 3-member cluster: leases, compaction and a hung member', () => {
  it('skips a member that is down from the start (endpoints named by host name), and leases outlive a failover', async () => {
    const [down, ...rest] = failover.cluster.members as [EtcdMember, ...EtcdMember[]];
    await down.kill();
    const s = storage(down, true);
    const a = await s.create(`${dir}/ttl-a`, widget('ttl-a'), { ttlSeconds: 1 });
    expect(a.metadata.resourceVersion).toBeTruthy();
    // Kill the member the storage went on to; the next grant and the expiry go through the last one.
    await down.start();
    const next = rest[0] as EtcdMember;
    await next.kill();
    await s.create(`${dir}/ttl-b`, widget('ttl-b'), { ttlSeconds: 1 });
    const deadline = Date.now() + 15_000;
    while ((await s.list(dir)).items.length > 0) {
      if (Date.now() > deadline) throw new Error('TTL keys did not expire');
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  it('a watch resumed on another member after its revision was compacted ends with one 410 ERROR', async () => {
    const leader = await failover.cluster.leader();
    const s = storage(leader);
    const a = await s.create(`${dir}/a`, widget('a'));
    // A watch of one key: writes elsewhere do not move its position, so after compaction it cannot resume.
    const w = s.watch(`${dir}/a`, { recursive: false, resourceVersion: a.metadata.resourceVersion });
    let rev = 0;
    for (let i = 0; i < 3; i++) rev = Number((await s.create(`${dir}/other-${i}`, widget(`other-${i}`))).metadata.resourceVersion);
    await s.compact(rev);
    await leader.kill();
    const events = await readUntil(w, () => false);
    expect(events.map(brief)).toEqual(['ERROR 410']);
    expect((events[0]?.object as Status | undefined)?.reason).toBe('Expired');
  });

  it('a member that hangs (SIGSTOP) fails the calls in flight at their deadline; the next calls and the watch go to another', async () => {
    const leader = await failover.cluster.leader();
    const follower = failover.cluster.members.find((m) => m !== leader) as EtcdMember;
    const s = storage(follower, false, 1000);
    const h = await s.create(`${dir}/h`, widget('h'));
    const w = s.watch(dir, { resourceVersion: h.metadata.resourceVersion });
    process.kill(follower.pid as number, 'SIGSTOP');
    try {
      const stuck = await s.get(`${dir}/h`).catch((e: unknown) => e);
      expect(isStorageError(stuck, 'Unreachable'), String(stuck)).toBe(true);
      expect(await s.get(`${dir}/h`)).toMatchObject({ metadata: { name: 'h' } });
      const h2 = await s.create(`${dir}/h2`, widget('h2'));
      // The watch left the hung member with the calls (not after keepalive's 40 s): the write arrives within seconds.
      const events = await readUntil(w, () => true, 5000);
      expect(events.map(brief)).toEqual([`ADDED h2@${h2.metadata.resourceVersion}`]);
      w.stop();
    } finally {
      process.kill(follower.pid as number, 'SIGCONT');
    }
  });
});
