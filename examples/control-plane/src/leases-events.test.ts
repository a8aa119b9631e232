import { ApiException, CoordinationV1Api, CoreV1Api, EventsV1Api, KubeConfig, type V1Lease, V1MicroTime } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import type { ControlPlane } from './control-plane.ts';
import { runKubectl, startTempControlPlane, stopTempControlPlane, succeeded } from './test-support/kubectl.ts';

/**
 * The kinds controllers rely on, against the example control plane over HTTPS: leader election over a Lease as
 * client-go's leaselock runs it (client-node 2.x has no elector of its own: the protocol is driven through
 * CoordinationV1Api), and events.k8s.io/v1 Events, which are core/v1 Events too — through client-node and kubectl.
 */

const T = 60_000;
const NS = 'kube-system';
const squash = (s: string): string => s.replace(/[ \t]+/g, ' ');

/** The status code of a failed client-node call, or undefined when it succeeded. */
async function codeOf(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    if (err instanceof ApiException) return err.code;
    throw err;
  }
}

/** A MicroTime as client-node hands it over: it types one as a Date but leaves the wire's string in place. */
const timeOf = (t: Date | string | undefined): number =>
  t === undefined ? 0 : Date.parse(String(t instanceof Date ? t.toISOString() : t));

/**
 * One candidate of client-go's LeaderElector over a LeaseLock (tryAcquireOrRenew): read the lease, create it when
 * missing, leave it alone while another holder's renewal has not expired, else take or renew it by an update carrying
 * the resourceVersion read — a conflict means another candidate wrote first. Time is the test's clock, not a timer.
 */
class LeaseCandidate {
  readonly identity: string;
  readonly api: CoordinationV1Api;
  readonly now: () => Date;
  readonly name = 'widget-controller';
  readonly durationSeconds = 15;

  constructor(identity: string, api: CoordinationV1Api, now: () => Date) {
    this.identity = identity;
    this.api = api;
    this.now = now;
  }

  /** One round: true when this candidate holds the lease afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.now();
    let lease: V1Lease;
    try {
      lease = await this.api.readNamespacedLease({ name: this.name, namespace: NS });
    } catch (err) {
      if (!(err instanceof ApiException) || err.code !== 404) throw err;
      const spec = {
        holderIdentity: this.identity,
        leaseDurationSeconds: this.durationSeconds,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: 0,
      };
      const code = await codeOf(this.api.createNamespacedLease({ namespace: NS, body: { metadata: { name: this.name }, spec } }));
      if (code === 409) return false;
      if (code !== undefined) throw new Error(`create answered ${code}`);
      return true;
    }
    const spec = lease.spec ?? {};
    const held = spec.holderIdentity && spec.holderIdentity !== this.identity;
    const expires = timeOf(spec.renewTime) + (spec.leaseDurationSeconds ?? 0) * 1000;
    if (held && expires > now.getTime()) return false;
    const next: V1Lease = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: this.identity,
        leaseDurationSeconds: this.durationSeconds,
        renewTime: now,
        ...(held ? { acquireTime: now, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 } : {}),
      },
    };
    const code = await codeOf(this.api.replaceNamespacedLease({ name: this.name, namespace: NS, body: next }));
    if (code === 409) return false;
    if (code !== undefined) throw new Error(`update answered ${code}`);
    return true;
  }
}

describe('leases and events.k8s.io events on the example control plane', () => {
  let cp: ControlPlane;
  let tmp: string;
  let kc: KubeConfig;
  beforeAll(async () => {
    ({ cp, tmp } = await startTempControlPlane('kapi-leases-events-'));
    kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfigPath);
  }, T);
  afterAll(() => stopTempControlPlane(cp, tmp), T);

  it('elects one leader of two; the other takes over once the leader stops renewing', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    // client-go writes MicroTimes with six fractional digits; client-node's V1MicroTime does too (a Date would not).
    const now = () => new V1MicroTime(clock);
    const a = new LeaseCandidate('a', kc.makeApiClient(CoordinationV1Api), now);
    const b = new LeaseCandidate('b', kc.makeApiClient(CoordinationV1Api), now);
    // Both start at once: exactly one create wins, the other's is AlreadyExists.
    const first = await Promise.all([a.tryAcquireOrRenew(), b.tryAcquireOrRenew()]);
    expect(first.filter(Boolean)).toHaveLength(1);
    const [leader, follower] = first[0] ? [a, b] : [b, a];

    clock += 10_000;
    expect(await leader.tryAcquireOrRenew()).toBe(true);
    clock += 10_000;
    // Renewed 10 s ago with a 15 s lease: still held.
    expect(await follower.tryAcquireOrRenew()).toBe(false);

    // A write with a stale resourceVersion conflicts: what keeps two candidates from both taking an expired lease.
    const api = kc.makeApiClient(CoordinationV1Api);
    const seen = await api.readNamespacedLease({ name: 'widget-controller', namespace: NS });
    expect(await leader.tryAcquireOrRenew()).toBe(true);
    expect(await codeOf(api.replaceNamespacedLease({ name: 'widget-controller', namespace: NS, body: seen }))).toBe(409);

    // The leader stops renewing; past the lease's duration the follower takes it over.
    clock += 16_000;
    expect(await follower.tryAcquireOrRenew()).toBe(true);
    const lease = await api.readNamespacedLease({ name: 'widget-controller', namespace: NS });
    expect(lease.spec?.holderIdentity).toBe(follower.identity);
    expect(lease.spec?.leaseTransitions).toBe(1);
    expect(timeOf(lease.spec?.acquireTime)).toBe(clock);
    expect(await leader.tryAcquireOrRenew()).toBe(false);

    // A plain Date is written with milliseconds, which kube's MicroTime decoder refuses (400), as here.
    const msTime = { metadata: { name: 'ms' }, spec: { renewTime: new Date(clock) } };
    expect(await codeOf(api.createNamespacedLease({ namespace: NS, body: msTime }))).toBe(400);
    // kube's validation: a lease duration must be positive.
    expect(
      await codeOf(api.createNamespacedLease({ namespace: NS, body: { metadata: { name: 'bad' }, spec: { leaseDurationSeconds: 0 } } })),
    ).toBe(422);
  });

  it('serves an event written through events.k8s.io/v1 through core/v1 too', async () => {
    const events = kc.makeApiClient(EventsV1Api);
    const created = await events.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { name: 'w.scaled' },
        eventTime: new V1MicroTime('2026-01-01T00:00:00.123Z'),
        reportingController: 'example.kapi.dev/widget-controller',
        reportingInstance: 'widget-controller-0',
        action: 'Scale',
        reason: 'ScaledUp',
        regarding: { kind: 'Widget', namespace: 'default', name: 'w', apiVersion: 'example.kapi.dev/v1' },
        note: 'scaled up to 3',
        type: 'Normal',
      },
    });
    expect(created.apiVersion).toBe('events.k8s.io/v1');
    const core = await kc.makeApiClient(CoreV1Api).readNamespacedEvent({ name: 'w.scaled', namespace: 'default' });
    expect(core.involvedObject.name).toBe('w');
    expect(core.message).toBe('scaled up to 3');
    expect(core.reportingComponent).toBe('example.kapi.dev/widget-controller');
    // The strict rules of events.k8s.io/v1: an event without eventTime, reportingController... is refused there.
    const code = await codeOf(events.createNamespacedEvent({ namespace: 'default', body: { metadata: { name: 'bare' } } as never }));
    expect(code).toBe(422);
  });

  const [kubectl] = kubectlBinaries(['kubectl']);
  it(
    'kubectl lists leases and events.k8s.io events with kube columns',
    async () => {
      const k = async (...args: string[]) => succeeded(args, await runKubectl(kubectl as string, tmp, cp.kubeconfigPath, args));
      const leases = squash(await k('get', 'leases', '-A'));
      expect(leases.split('\n')[0]).toBe('NAMESPACE NAME HOLDER AGE');
      expect(leases).toMatch(/kube-system widget-controller [ab] \S+/);
      const events = squash(await k('get', 'events.v1.events.k8s.io', '-n', 'default'));
      expect(events.split('\n')[0]).toBe('LAST SEEN TYPE REASON OBJECT MESSAGE');
      expect(events).toContain('Normal ScaledUp widget/w scaled up to 3');
      const core = squash(await k('get', 'events', '-n', 'default'));
      expect(core).toContain('Normal ScaledUp widget/w scaled up to 3');
    },
    T,
  );
});
