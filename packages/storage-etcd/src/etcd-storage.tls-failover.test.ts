import { randomBytes } from 'node:crypto';
import { type EtcdCluster, type EtcdMember, startEtcdCluster } from '@kapi/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdStorage } from './etcd-storage.ts';
import { dir, widget } from './test-support/failover-cluster.ts';
import { brief, readUntil } from './test-support/read-until.ts';

// Failover over TLS: a real 3-member etcd cluster serving clients with TLS and --client-cert-auth (one CA and
// serving certificate, for 127.0.0.1 and localhost, made at run time); the member the store talks to is killed.
let cluster: EtcdCluster;
beforeAll(async () => {
  cluster = await startEtcdCluster({ members: 3, tls: true });
});
afterAll(async () => {
  await cluster?.stop();
});

describe('EtcdStorage on a 3-member cluster over TLS', () => {
  it('moves reads, writes and a watch to the next https:// member when the one it talks to dies', async () => {
    const tls = cluster.tls;
    if (!tls) throw new Error('startEtcdCluster({ tls: true }) gave no TLS credentials');
    const leader = await cluster.leader();
    // A follower first (a dead leader would add etcd's own election wait); names, so DNS SANs are checked too.
    const first = cluster.members.find((m) => m !== leader) as EtcdMember;
    const endpoints = [first.clientURL, ...cluster.endpoints.filter((e) => e !== first.clientURL)].map((e) =>
      e.replace('127.0.0.1', 'localhost'),
    );
    expect(endpoints.every((e) => e.startsWith('https://localhost:'))).toBe(true);
    const s = new EtcdStorage({
      endpoints,
      tls: { ca: tls.ca.pem, cert: tls.client.cert, key: tls.client.key },
      prefix: `/kapi-tls-failover-${randomBytes(6).toString('hex')}`,
    });
    try {
      const w = s.watch(dir, { resourceVersion: await s.currentResourceVersion() });
      const before = await s.create(`${dir}/a`, widget('a'));
      await first.kill();
      // A read first: it is retried on the next member (a write the dying member may have taken would fail as one
      // whose outcome is unknown, see etcd-storage.failover.test.ts); then calls and the watch stay there, over TLS.
      expect((await s.get(`${dir}/a`))?.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      const after = await s.create(`${dir}/b`, widget('b'));
      expect((await s.list(dir)).items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
      const events = await readUntil(w, (e) => e.type === 'ADDED' && e.object.metadata.name === 'b');
      expect(events.map(brief)).toEqual([`ADDED a@${before.metadata.resourceVersion}`, `ADDED b@${after.metadata.resourceVersion}`]);
      w.stop();
    } finally {
      await s.close();
      await first.start();
    }
  });
});
