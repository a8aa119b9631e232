import { serviceUnavailable, useTestServer } from '@kapi/testing';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { LeaderElector, microTime } from './leader-election.ts';
import { eventually } from './test-support/eventually.ts';

const kapi = useTestServer({ beforeEach, afterEach });
const electors: LeaderElector[] = [];
const runs: Promise<void>[] = [];
let log: string[];

beforeEach(() => {
  log = [];
});
afterEach(async () => {
  for (const e of electors.splice(0)) e.stop();
  await Promise.all(runs.splice(0));
});

function candidate(identity: string): LeaderElector {
  const e = new LeaderElector({
    kubeConfig: kapi.kubeConfig,
    name: 'example-controller-manager',
    identity,
    clock: kapi.clock,
    onStartedLeading: () => {
      log.push(`${identity} started`);
    },
    onStoppedLeading: () => log.push(`${identity} stopped`),
  });
  electors.push(e);
  runs.push(e.run());
  return e;
}

const lease = () =>
  kapi.kubeConfig.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: 'example-controller-manager', namespace: 'kube-system' });
/** Moves the fake clock a little per poll, so the electors' retry timers fire and their requests complete between steps. */
const advancing = <T>(check: () => T | undefined | false, what: string) =>
  eventually(() => {
    kapi.clock.advance(500);
    return check();
  }, what);

test('microTime writes six fractional digits', () => {
  expect(microTime(Date.UTC(2026, 0, 1, 0, 0, 0, 123))).toBe('2026-01-01T00:00:00.123000Z');
});

test('one of two candidates leads; the other takes over when the leader cannot renew and its Lease expires', async () => {
  const a = candidate('a');
  await eventually(() => a.isLeader, 'a leading');
  const b = candidate('b');
  await eventually(() => b.leader === 'a', 'b observing a');
  // A few renewals later, still only a.
  for (let i = 0; i < 10; i++) kapi.clock.advance(500);
  await advancing(() => b.leader === 'a' && !b.isLeader, 'b still waiting');
  const held = await lease();
  expect(held.spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 });
  expect(held.spec?.renewTime).toBeDefined();

  // a is cut off from the server's writes: it gives up after renewDeadline; b waits for leaseDuration.
  kapi.faults.failNext(Number.POSITIVE_INFINITY, serviceUnavailable(), { verb: 'update', resource: 'leases.coordination.k8s.io' });
  await advancing(() => !a.isLeader, 'a to give up');
  expect(log).toEqual(['a started', 'a stopped']);
  expect(b.isLeader).toBe(false);
  kapi.faults.clear();
  await advancing(() => b.isLeader, 'b to take over');
  expect(log).toEqual(['a started', 'a stopped', 'b started']);
  expect((await lease()).spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
});

test('a leader that stops releases the Lease; the next candidate acquires it without waiting for expiry', async () => {
  const a = candidate('a');
  await eventually(() => a.isLeader, 'a leading');
  const b = candidate('b');
  await eventually(() => b.leader === 'a', 'b observing a');
  const before = kapi.clock.now();
  a.stop();
  await runs[0];
  expect((await lease()).spec?.holderIdentity).toBe('');
  await advancing(() => b.isLeader, 'b leading');
  expect(kapi.clock.now() - before).toBeLessThan(15_000);
  expect((await lease()).spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
  expect(log).toEqual(['a started', 'a stopped', 'b started']);
});

test('a leader whose requests hang gives up at the renew deadline (the attempt is aborted, as client-go cancels it)', async () => {
  const a = candidate('a');
  await eventually(() => a.isLeader, 'a leading');
  kapi.faults.delay(60_000, { resource: 'leases.coordination.k8s.io' }); // real time: only clear() releases them
  await advancing(() => !a.isLeader, 'a to give up');
  expect(log).toEqual(['a started', 'a stopped']);
  kapi.faults.clear();
});
