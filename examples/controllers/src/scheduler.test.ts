import { afterEach, describe, expect, it, vi } from 'vitest';
import { ControllerManager } from './controller-manager.ts';
import { Informer } from './informer.ts';
import { Scheduler } from './scheduler.ts';
import { GROUP, type Part, VERSION } from './scheduler-types.ts';
import { HOLD, type SchedulerFixture, startScheduler } from './test-support/scheduler-fixture.ts';

let fixture: SchedulerFixture | undefined;
afterEach(async () => {
  await fixture?.stop();
  fixture = undefined;
});
const parts = { group: GROUP, version: VERSION, plural: 'parts', namespace: 'default' };
async function start(options?: Parameters<typeof startScheduler>[0]): Promise<SchedulerFixture> {
  fixture = await startScheduler(options);
  return fixture;
}

describe('Scheduler', () => {
  it('binds a pending Part to the least allocated Machine that passes the filter, and sets its phase', async () => {
    const s = await start();
    await s.machine('small', 1000);
    await s.machine('big', 2000);
    // Emptiest of all, but cordoned.
    await s.machine('cordoned', 8000, true);
    const created = await s.part('p', 300);
    expect(created.spec).toEqual({ cpu: 300 });
    expect(await s.bound('p')).toBe('big');
    const part = await s.getPart('p');
    expect(part.status).toEqual({ phase: 'Bound' });
    // One spec change: the bind.
    expect(part.metadata?.generation).toBe(2);
  });

  it('breaks ties by name, and spreads Parts by what is left free', async () => {
    const s = await start();
    await s.machine('m2', 1000);
    await s.machine('m1', 1000);
    await s.part('a', 400);
    expect(await s.bound('a')).toBe('m1');
    // m1 has 600 left, m2 1000: the next goes to m2, the one after (m1 600 vs m2 600: a tie) to m1.
    await s.part('b', 400);
    expect(await s.bound('b')).toBe('m2');
    await s.part('c', 100);
    expect(await s.bound('c')).toBe('m1');
  });

  it('never overcommits a Machine when Parts are scheduled back to back (the assume cache)', async () => {
    const s = await start({ faultDelays: 'clock' });
    for (let i = 0; i < 6; i++) await s.part(`p${i}`, 300);
    await s.unschedulable('p0', 'p1', 'p2', 'p3', 'p4', 'p5');
    // The Parts informer hears nothing of the binds: its watch is ended and the new one held until the clock moves.
    const held = s.kapi.clock.timerSet(HOLD);
    s.kapi.faults.delay(HOLD, { verb: 'watch', resource: 'parts.example.kapi.dev' }, { times: 1 });
    expect(await s.kapi.faults.endWatches({ resource: 'parts.example.kapi.dev' })).toBe(1);
    await held;
    // The Machine comes; all six are tried in one burst, each seeing the cpu the ones before took only as assumed.
    await s.machine('m', 1000);
    await s.unschedulable('p3', 'p4', 'p5');
    const parts = (await s.api.listNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'parts', namespace: 'default' }))
      .items as Part[];
    expect(parts.filter((p) => p.spec?.machineName === 'm').map((p) => p.metadata?.name)).toEqual(['p0', 'p1', 'p2']);
    expect(s.log.filter((l) => l.includes('unschedulable')).at(-1)).toMatch(/0\/1 machines are available: 1 insufficient cpu/);
    // The watch comes back and replays the binds; the scheduler's view agrees with the server's.
    s.kapi.clock.advance(HOLD);
    for (const name of ['p0', 'p1', 'p2']) await s.bound(name);
    await s.unschedulable('p3', 'p4', 'p5');
  });

  it('keeps an unschedulable Part pending until a Machine appears, is uncordoned, or a bound Part leaves', async () => {
    const s = await start();
    await s.machine('cordoned', 1000, true);
    await s.part('a', 500);
    await s.unschedulable('a');
    await vi.waitFor(async () => expect((await s.getPart('a')).status).toEqual({ phase: 'Pending' }), { timeout: 5_000, interval: 2 });
    expect((await s.getPart('a')).spec?.machineName).toBeUndefined();
    // Tried once: its own Pending phase is no reason to try again. (z's events come after a's on the same watch.)
    await s.part('z', 500);
    await s.unschedulable('a', 'z');
    expect(s.log.filter((l) => l.startsWith('default/a'))).toEqual([
      'default/a: unschedulable: 0/1 machines are available: 1 unschedulable',
    ]);
    await s.api.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'parts', namespace: 'default', name: 'z' });
    await s.unschedulable('a');

    // A Machine appears.
    await s.machine('m', 800);
    expect(await s.bound('a')).toBe('m');

    // Full: b waits; uncordoning the other Machine makes room.
    await s.part('b', 500);
    await s.unschedulable('b');
    const cordoned = await s.api.getClusterCustomObject({ group: GROUP, version: VERSION, plural: 'machines', name: 'cordoned' });
    await s.api.replaceClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'machines',
      name: 'cordoned',
      body: { ...cordoned, spec: { cpu: 1000, unschedulable: false } },
    });
    expect(await s.bound('b')).toBe('cordoned');

    // Both full: c waits until a bound Part is deleted.
    await s.part('c', 600);
    await s.unschedulable('c');
    await s.api.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'parts', namespace: 'default', name: 'a' });
    expect(await s.bound('c')).toBe('m');
  });
});

describe('Scheduler and changed Parts', () => {
  it('tries a waiting Part again when its spec changes (it asks less cpu)', async () => {
    const s = await start();
    await s.machine('m', 1000);
    await s.part('big', 2000);
    await s.unschedulable('big');
    await vi.waitFor(async () => expect((await s.getPart('big')).status?.phase).toBe('Pending'), { timeout: 5_000, interval: 2 });
    const part = await s.getPart('big');
    await s.api.replaceNamespacedCustomObject({ ...parts, name: 'big', body: { ...part, spec: { cpu: 600 } } });
    expect(await s.bound('big')).toBe('m');
  });
});

describe('Scheduler under the ControllerManager', () => {
  it('runs as a registered controller while the manager runs, and stops with it', async () => {
    const s = await start();
    await s.scheduler.stop();
    const manager = new ControllerManager({ kubeConfig: s.kapi.kubeConfig, identity: 'test', leaderElection: false });
    manager.register('scheduler', ({ kubeConfig }) => new Scheduler({ kubeConfig }));
    const stop = new AbortController();
    const running = manager.run(stop.signal);
    await s.machine('m', 1000);
    await s.part('a', 100);
    expect(await s.bound('a')).toBe('m');
    stop.abort();
    await running;
    // Stopped: no watch of its is left open on the server.
    await vi.waitFor(async () => expect(await s.kapi.faults.endWatches({ verb: 'watch' })).toBe(0), { timeout: 5_000, interval: 2 });
  });
});

describe("Parts' spec.machineName, a selectable field", () => {
  it('selects the pending Parts with spec.machineName= (the missing field is the empty string, as in kube)', async () => {
    const s = await start();
    await s.machine('m', 1000);
    await s.part('bound', 100);
    await s.bound('bound');
    await s.scheduler.stop();
    await s.part('pending', 100);
    const list = (fieldSelector: string) =>
      s.api
        .listNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'parts', namespace: 'default', fieldSelector })
        .then((l) => (l.items as Part[]).map((p) => p.metadata?.name));
    expect(await list('spec.machineName=')).toEqual(['pending']);
    expect(await list('spec.machineName!=')).toEqual(['bound']);
    expect(await list('spec.machineName=m')).toEqual(['bound']);
  });

  it('lets an informer watch the pending Parts alone: a Part leaves it (a delete) when it is bound', async () => {
    const s = await start();
    const pending = new Informer<Part>(s.kapi.kubeConfig, {
      path: `/apis/${GROUP}/${VERSION}/parts`,
      fieldSelector: 'spec.machineName=',
      list: () =>
        s.api.listCustomObjectForAllNamespaces({
          group: GROUP,
          version: VERSION,
          resourcePlural: 'parts',
          fieldSelector: 'spec.machineName=',
        }),
    });
    const left: string[] = [];
    pending.on('delete', (p) => left.push(p.metadata?.name ?? ''));
    await pending.start();
    try {
      await s.part('p', 100);
      await vi.waitFor(() => expect(pending.get('p', 'default')).toBeDefined(), { timeout: 5_000, interval: 2 });
      await s.machine('m', 1000);
      await s.bound('p');
      await vi.waitFor(() => expect(left).toEqual(['p']), { timeout: 5_000, interval: 2 });
      expect(pending.list()).toEqual([]);
    } finally {
      await pending.stop();
    }
  });
});
