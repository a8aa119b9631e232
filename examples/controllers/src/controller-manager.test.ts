import { Widget } from '@kapi/example-control-plane/widget';
import { serviceUnavailable, useTestServer } from '@kapi/testing';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { ControllerManager } from './controller-manager.ts';
import { WIDGET_LABEL } from './example-kinds.ts';
import { ReplicaController } from './replica-controller.ts';
import { CRDS } from './test-support/crds.ts';
import { eventually } from './test-support/eventually.ts';
import { exampleClient } from './test-support/widgets.ts';

const kapi = useTestServer({ beforeEach, afterEach }, { resources: [Widget], crds: CRDS });
let client: ReturnType<typeof exampleClient>;
const stops: AbortController[] = [];
const runs: Promise<void>[] = [];
/** Every replica controller the managers built, by manager identity. */
let built: { identity: string; controller: ReplicaController }[];

beforeEach(() => {
  client = exampleClient(kapi);
  built = [];
});
afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await Promise.all(runs.splice(0));
});

function manager(identity: string): { manager: ControllerManager; stop: AbortController; run: Promise<void> } {
  const m = new ControllerManager({ kubeConfig: kapi.kubeConfig, identity, clock: kapi.clock, onError: () => {} });
  m.register('replica-controller', ({ kubeConfig }) => {
    const controller = new ReplicaController({ kubeConfig, baseDelayMs: 1, maxDelayMs: 10, onError: () => {} });
    built.push({ identity, controller });
    return controller;
  });
  const stop = new AbortController();
  const run = m.run(stop.signal);
  stops.push(stop);
  runs.push(run);
  return { manager: m, stop, run };
}

const created = (identity: string) => built.filter((b) => b.identity === identity).reduce((n, b) => n + b.controller.stats.created, 0);
const lease = () =>
  kapi.kubeConfig.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: 'example-controller-manager', namespace: 'kube-system' });
/** Moves the fake clock a little per poll, so the electors' retry timers fire between requests. */
const advancing = <T>(check: () => T | undefined | false, what: string) =>
  eventually(() => {
    kapi.clock.advance(500);
    return check();
  }, what);
async function converged(name: string, n: number) {
  await eventually(async () => {
    const [w, parts] = await Promise.all([client.getWidget(name), client.parts(`${WIDGET_LABEL}=${name}`)]);
    return parts.filter((p) => !p.metadata?.deletionTimestamp).length === n && w.status?.replicas === n;
  }, `${name} at ${n}`);
}

test('of two managers only the leader runs controllers; when it stops, the other takes over and converges', async () => {
  const a = manager('a');
  await eventually(() => a.manager.isLeader, 'a leading');
  const b = manager('b');
  await eventually(() => b.manager.leader === 'a', 'b observing a');

  await client.createWidget('w', { replicas: 2 });
  await converged('w', 2);
  expect(created('a')).toBe(2);
  expect(built.map((x) => x.identity)).toEqual(['a']);

  a.stop.abort(); // a's controllers stop, then it releases the Lease
  await a.run;
  await client.scale('w', 3);
  await advancing(() => b.manager.isLeader, 'b leading'); // b retries every 2 s of the fake clock
  await converged('w', 3);
  expect(created('a')).toBe(2);
  expect(created('b')).toBe(1);
  expect((await lease()).spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
});

test('with leader election off the controllers run at once', async () => {
  const m = new ControllerManager({ kubeConfig: kapi.kubeConfig, identity: 'solo', leaderElection: false });
  m.register('replica-controller', ({ kubeConfig }) => new ReplicaController({ kubeConfig, onError: () => {} }));
  const stop = new AbortController();
  stops.push(stop);
  runs.push(m.run(stop.signal));
  await client.createWidget('solo', { replicas: 1 });
  await converged('solo', 1);
  expect(m.isLeader).toBe(true);
});

test('a manager that loses its Lease stops its controllers and campaigns again', async () => {
  const a = manager('a');
  await eventually(() => a.manager.isLeader, 'a leading');
  kapi.faults.failNext(Number.POSITIVE_INFINITY, serviceUnavailable(), { verb: 'update', resource: 'leases.coordination.k8s.io' });
  await advancing(() => !a.manager.isLeader, 'a to lose the Lease');
  kapi.faults.clear();
  await advancing(() => a.manager.isLeader, 'a leading again');
  expect(built.map((b) => b.identity)).toEqual(['a', 'a']); // a fresh controller for the new term
  await client.createWidget('again', { replicas: 1 });
  await converged('again', 1);
  expect(built[1]?.controller.stats.created).toBe(1);
  expect((await lease()).spec).toMatchObject({ holderIdentity: 'a' });
});
