import { afterEach, describe, expect, it, vi } from 'vitest';
import { GROUP, VERSION } from './scheduler-types.ts';
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
