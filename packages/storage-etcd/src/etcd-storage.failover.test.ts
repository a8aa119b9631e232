import { isStorageError } from '@kapi/storage';
import type { EtcdMember } from '@kapi/test-servers';
import { describe, expect, it } from 'vitest';
import { dir, useFailoverCluster, widget } from './test-support/failover-cluster.ts';
import { brief, readUntil } from './test-support/read-until.ts';

// Failover on a real 3-member etcd cluster: members are killed (SIGKILL, as a crash) and started again.
const failover = useFailoverCluster();
const { storage } = failover;

describe('EtcdStorage on a 3-member cluster', () => {
  it.each(['the leader', 'a follower'] as const)(
    'keeps serving reads, writes and a watch through the death of the leader, talking to %s',
    async (to) => {
      const leader = await failover.cluster.leader();
      const s = storage(to === 'the leader' ? leader : (failover.cluster.members.find((m) => m !== leader) as EtcdMember));
      const start = await s.currentResourceVersion();
      const w = s.watch(dir, { resourceVersion: start });

      const acknowledged = new Map<string, string>();
      const writeErrors: unknown[] = [];
      const readErrors: unknown[] = [];
      let stop = false;
      let n = 0;
      const writer = (async () => {
        while (!stop) {
          const name = `w-${n++}`;
          try {
            acknowledged.set(name, (await s.create(`${dir}/${name}`, widget(name))).metadata.resourceVersion as string);
          } catch (err) {
            writeErrors.push(err);
          }
        }
      })();
      const reader = (async () => {
        while (!stop) {
          try {
            await s.list(dir);
            await s.get(`${dir}/w-0`, { ignoreNotFound: true });
          } catch (err) {
            readErrors.push(err);
          }
        }
      })();

      const until = async (count: number) => {
        while (acknowledged.size < count) await new Promise((r) => setTimeout(r, 10));
      };
      await until(20);
      await leader.kill();
      const atKill = acknowledged.size;
      const killedAt = Date.now();
      await until(atKill + 1);
      // A write a follower forwarded to the dead leader waits for etcd's request timeout (5 s + 2 elections) to fail.
      const firstAfter = Date.now() - killedAt;
      await until(atKill + 40);
      stop = true;
      await Promise.all([writer, reader]);

      // Reads were retried on the other members; a write fails only when its outcome is unknown, and says so.
      expect(readErrors.map(String)).toEqual([]);
      for (const err of writeErrors) {
        expect(isStorageError(err, 'Unreachable'), String(err)).toBe(true);
        expect(String(err)).toMatch(/may or may not have been applied/);
      }

      // Every acknowledged write is there; the watch saw each object once, in revision order, with no gap.
      const list = await s.list(dir);
      const stored = new Map(list.items.map((o) => [o.metadata.name as string, o.metadata.resourceVersion as string]));
      for (const [name, rv] of acknowledged) expect(stored.get(name), name).toBe(rv);
      const lastRv = list.metadata.resourceVersion;
      const events = await readUntil(w, (e) => e.type === 'ERROR' || Number(e.object.metadata.resourceVersion) >= Number(lastRv));
      const expected = list.items
        .map((o) => `ADDED ${o.metadata.name}@${o.metadata.resourceVersion}`)
        .sort((a, b) => Number(a.split('@')[1]) - Number(b.split('@')[1]));
      expect(events.map(brief)).toEqual(expected);
      w.stop();
      console.log(
        `failover (talking to ${to}): ${acknowledged.size} creates acknowledged (${acknowledged.size - atKill} after the leader was killed), ` +
          `${writeErrors.length} with an unknown outcome, ${readErrors.length} read errors, ${events.length} watch events; ` +
          `first write acknowledged ${firstAfter} ms after the kill`,
      );

      // The killed member comes back from its data dir and catches up; the storage keeps working.
      await leader.start();
      await s.create(`${dir}/after-restart`, widget('after-restart'));
      expect(await s.get(`${dir}/after-restart`)).toMatchObject({ metadata: { name: 'after-restart' } });
    },
  );
});
