import { ConfigMap, Lease, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, expect, it } from 'vitest';
import { GenericAPIServer } from '../server/generic-api-server.ts';
import { LeaderElectedControllers } from './leader-elected-controllers.ts';
import type { LeaseRecord } from './lease-lock.ts';

// Two servers over one storage stand for two kapi processes on one etcd: each has its own watch caches and controllers.
const storage = new MemoryStorage();
const servers: GenericAPIServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.shutdown();
});

function replica(identity: string, log: string[]): GenericAPIServer {
  const server = new GenericAPIServer({
    storage,
    closeStorage: false,
    resources: [Namespace, ConfigMap, Lease],
    garbageCollector: true,
    // Short timings, so a takeover takes a fraction of a second.
    leaderElection: new LeaderElectedControllers({
      identity,
      leaseDurationMs: 1000,
      renewDeadlineMs: 600,
      retryPeriodMs: 50,
      onEvent: (e) => log.push(`${identity} ${e}`),
      onError: (err, what) => console.error(what, err),
    }),
  });
  servers.push(server);
  return server;
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting until ${what}`);
}

const lease = async (s: GenericAPIServer): Promise<LeaseRecord & { spec: NonNullable<LeaseRecord['spec']> }> =>
  (await s.store('leases.coordination.k8s.io')?.get({ namespace: 'kube-system' }, 'kube-controller-manager')) as never;

it('one replica runs the controllers; on its shutdown it releases the Lease and the other finishes a namespace deletion', async () => {
  const log: string[] = [];
  const a = replica('a', log);
  await a.start();
  await until(() => a.leaderElection?.isLeader === true, 'a leads');
  const b = replica('b', log);
  await b.start();
  await until(() => b.leaderElection?.leader === 'a', 'b sees a lead');
  expect(b.leaderElection?.isLeader).toBe(false);
  expect(a.leaderElection?.controllers).toEqual(['namespace-controller', 'garbage-collector']);
  const held = await lease(b);
  expect(held.spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 1, leaseTransitions: 0 });
  expect(held.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

  // A namespace deletion begun on a: its ConfigMap is held by a finalizer, so the namespace stays Terminating.
  const cms = a.store('configmaps');
  await a.store('namespaces')?.create({}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'held' } });
  await cms?.create(
    { namespace: 'held' },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'held', finalizers: ['example.com/hold'] } },
  );
  await a.deleter('namespaces')?.delete('held', {});
  await until(async () => Boolean((await cms?.get({ namespace: 'held' }, 'c'))?.metadata.deletionTimestamp), 'a deleted the content');

  await a.shutdown();
  servers.splice(servers.indexOf(a), 1);
  await until(() => b.leaderElection?.isLeader === true, 'b leads');
  expect((await lease(b)).spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
  // b's namespace controller picks the Terminating namespace up and ends it once the finalizer goes.
  const c = await b.store('configmaps')?.get({ namespace: 'held' }, 'c');
  await b.store('configmaps')?.update({ namespace: 'held' }, 'c', { ...c, metadata: { ...c?.metadata, finalizers: [] } });
  await until(async () => (await b.store('namespaces')?.list({}))?.items.every((n) => n.metadata.name !== 'held') === true, 'held gone');
  expect(log).toEqual([
    'a new leader a',
    'a started leading',
    'b new leader a',
    'a stopped leading',
    'b new leader b',
    'b started leading',
  ]);
});

it('a leader that cannot renew stops its controllers before the Lease can pass; no two replicas lead at once', async () => {
  const log: string[] = [];
  const a = replica('a', log);
  const b = replica('b', log);
  await Promise.all([a.start(), b.start()]);
  await until(() => a.leaderElection?.isLeader !== b.leaderElection?.isLeader, 'one leads');
  const [leader, other] = a.leaderElection?.isLeader ? [a, b] : [b, a];
  // Another holder wrote the Lease behind the leader's back (as a partition would let a successor do): the leader's
  // renewals conflict, it stops leading within its renew deadline, and then the other may take the Lease when it expires.
  const leases = leader.store('leases.coordination.k8s.io');
  const current = await lease(leader);
  await leases?.update({ namespace: 'kube-system' }, 'kube-controller-manager', {
    ...current,
    spec: { ...current.spec, holderIdentity: 'intruder' },
  });
  let both = false;
  await until(() => {
    if (a.leaderElection?.isLeader && b.leaderElection?.isLeader) both = true;
    return leader.leaderElection?.isLeader === false && log.includes(`${leader.leaderElection.identity} stopped leading`);
  }, 'the leader stopped');
  // The intruder never renews: its Lease expires and one of the two leads again.
  await until(() => a.leaderElection?.isLeader === true || b.leaderElection?.isLeader === true, 'a new term');
  expect(both).toBe(false);
  // The controllers of the new term work, whichever replica leads (started again in the one that led before).
  await a.store('namespaces')?.create({}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'later' } });
  await a.store('configmaps')?.create({ namespace: 'later' }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  await a.deleter('namespaces')?.delete('later', {});
  await until(async () => (await b.store('namespaces')?.list({}))?.items.every((n) => n.metadata.name !== 'later') === true, 'later gone');
  expect(other.leaderElection?.isLeader || leader.leaderElection?.isLeader).toBe(true);
});
