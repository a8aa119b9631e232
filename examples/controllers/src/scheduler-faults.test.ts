import { conflict } from '@kapi/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Scheduler } from './scheduler.ts';
import { GROUP, type Part, VERSION } from './scheduler-types.ts';
import { HOLD, type SchedulerFixture, startScheduler } from './test-support/scheduler-fixture.ts';

let fixture: SchedulerFixture | undefined;
afterEach(async () => {
  await fixture?.stop();
  fixture = undefined;
});
async function start(options?: Parameters<typeof startScheduler>[0]): Promise<SchedulerFixture> {
  fixture = await startScheduler(options);
  return fixture;
}
const PARTS = 'parts.example.kapi.dev';
const MACHINES = 'machines.example.kapi.dev';
/** Ends the scheduler's watch of `resource` once it is open (the informer's start resolves as it opens). */
const endWatch = (s: SchedulerFixture, resource: string, expired = false) =>
  vi.waitFor(async () => expect(await s.kapi.faults.endWatches({ resource }, { expired })).toBe(1), { timeout: 5_000, interval: 2 });
/** Resets the connection of the scheduler's watch of `resource` once it is open. */
const dropWatch = (s: SchedulerFixture, resource: string) =>
  vi.waitFor(() => expect(s.kapi.faults.dropConnections({ verb: 'watch', resource })).toBe(1), { timeout: 5_000, interval: 2 });
const parts = { group: GROUP, version: VERSION, plural: 'parts', namespace: 'default' };

describe('Scheduler under conflicts', () => {
  it('retries a bind answered 409 and binds the Part once', async () => {
    const s = await start();
    await s.machine('m', 1000);
    s.kapi.faults.failNext(1, conflict(), { verb: 'update', resource: PARTS });
    await s.part('p', 100);
    expect(await s.bound('p')).toBe('m');
    expect(s.log.filter((l) => l.startsWith('default/p: 409'))).toHaveLength(1);
    expect(s.log.filter((l) => l.startsWith('default/p: bound'))).toEqual(['default/p: bound to m (score 90)']);
    // One spec change: a single bind reached the object.
    expect((await s.getPart('p')).metadata?.generation).toBe(2);
  });

  it('retries the phase update answered 409 from a fresh read, without binding again', async () => {
    const s = await start();
    await s.machine('m', 1000);
    s.kapi.faults.failNext(1, conflict(), { verb: 'update', resource: `${PARTS}/status` });
    await s.part('p', 100);
    expect(await s.bound('p')).toBe('m');
    expect(s.log.filter((l) => l.startsWith('default/p: 409'))).toHaveLength(1);
    expect((await s.getPart('p')).metadata?.generation).toBe(2);
  });

  it("loses the race to a writer that changed the Part after it was read: 409, re-read, bound, the writer's change kept", async () => {
    const s = await start({ faultDelays: 'clock' });
    await s.machine('m', 1000);
    // Hold the scheduler's bind on the server's clock until the other writer is done.
    const held = s.kapi.clock.timerSet(HOLD);
    s.kapi.faults.delay(HOLD, { verb: 'update', resource: PARTS }, { times: 1 });
    await s.part('p', 100);
    await held;
    const read = (await s.getPart('p')) as Part;
    await s.api.replaceNamespacedCustomObject({
      ...parts,
      name: 'p',
      body: { ...read, metadata: { ...read.metadata, labels: { owner: 'other' } } },
    });
    s.kapi.clock.advance(HOLD);

    expect(await s.bound('p')).toBe('m');
    expect(s.log.filter((l) => l.startsWith('default/p: 409'))).toHaveLength(1);
    const part = await s.getPart('p');
    expect(part.metadata?.labels).toEqual({ owner: 'other' });
    expect(part.metadata?.generation).toBe(2);
  });
});

describe('Two schedulers racing (no leader election)', () => {
  it('bind each Part once: the loser of a race gets a real 409, re-reads, and finds it bound', async () => {
    const s = await start();
    const log: string[] = [];
    const other = new Scheduler({ kubeConfig: s.kapi.kubeConfig, log: (l) => log.push(l) });
    await other.start();
    try {
      await s.machine('m', 100_000);
      const names = Array.from({ length: 12 }, (_, i) => `p${i}`);
      await Promise.all(names.map((n) => s.part(n, 100)));
      expect(await Promise.all(names.map((n) => s.bound(n)))).toEqual(names.map(() => 'm'));
      // One spec change each: a single bind reached each Part.
      for (const n of names) expect((await s.getPart(n)).metadata?.generation).toBe(2);
      // Every failure either scheduler saw was a lost race (in practice each Part's loser: 12 conflicts).
      expect([...s.log, ...log].filter((l) => l.includes('retrying') && !/: 409 /.test(l))).toEqual([]);
    } finally {
      await other.stop();
    }
  });
});

describe('Scheduler across watch ends', () => {
  it('goes on after its watches end cleanly (the informers watch again from their resourceVersion)', async () => {
    const s = await start();
    await endWatch(s, MACHINES);
    await endWatch(s, PARTS);
    await s.machine('m', 1000);
    await s.part('p', 100);
    expect(await s.bound('p')).toBe('m');
  });

  it('uses a Machine added while its watch was down, after 410 Expired made the informer relist', async () => {
    const s = await start({ faultDelays: 'clock' });
    await s.part('p', 100);
    await s.unschedulable('p');
    // The Machines watch expires; the relist is held, and a Machine is created meanwhile.
    const held = s.kapi.clock.timerSet(HOLD);
    s.kapi.faults.delay(HOLD, { verb: 'list', resource: MACHINES }, { times: 1 });
    await endWatch(s, MACHINES, true);
    await held;
    await s.machine('m', 1000);
    s.kapi.clock.advance(HOLD);
    expect(await s.bound('p')).toBe('m');
  });

  it('frees the cpu of a Part deleted while the Parts watch was down, once the relist shows it gone', async () => {
    const s = await start({ faultDelays: 'clock' });
    await s.machine('m', 500);
    await s.part('a', 500);
    await s.bound('a');
    await s.part('b', 500);
    await s.unschedulable('b');
    const held = s.kapi.clock.timerSet(HOLD);
    s.kapi.faults.delay(HOLD, { verb: 'list', resource: PARTS }, { times: 1 });
    await endWatch(s, PARTS, true);
    await held;
    await s.api.deleteNamespacedCustomObject({ ...parts, name: 'a' });
    s.kapi.clock.advance(HOLD);
    expect(await s.bound('b')).toBe('m');
  });

  it('recovers from a reset watch connection (the informer restarts after its backoff)', async () => {
    const s = await start({ informerRestartDelayMs: 1 });
    await dropWatch(s, MACHINES);
    await dropWatch(s, PARTS);
    await s.machine('m', 1000);
    await s.part('p', 100);
    expect(await s.bound('p')).toBe('m');
  });
});
