import { conflict } from '@kapi/testing';
import { afterEach, describe, expect, it } from 'vitest';
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
