import { describe, expect, it } from 'vitest';
import { SchedulerCache } from './scheduler-cache.ts';
import { SchedulingQueue } from './scheduler-queue.ts';
import type { Part } from './scheduler-types.ts';

const part = (name: string, cpu: number, machineName?: string): Part => ({
  metadata: { name, namespace: 'ns' },
  spec: { cpu, ...(machineName ? { machineName } : {}) },
});

describe('SchedulingQueue', () => {
  it('keeps unschedulable Parts out of the active queue until a cluster event moves them back', async () => {
    const q = new SchedulingQueue();
    q.add('ns/a');
    expect(await q.active.get()).toBe('ns/a');
    q.addUnschedulable('ns/a', q.attempt());
    q.active.done('ns/a');
    expect(q.active.length).toBe(0);
    expect(q.unschedulable()).toEqual(['ns/a']);
    q.moveAllToActive();
    expect(q.unschedulable()).toEqual([]);
    expect(await q.active.get()).toBe('ns/a');
    q.shutDown();
  });

  it('sends a Part back to the active queue when an event came during its attempt', async () => {
    const q = new SchedulingQueue();
    q.add('ns/a');
    const key = (await q.active.get()) as string;
    const attempt = q.attempt();
    q.moveAllToActive(); // a Machine was added while the attempt ran
    q.addUnschedulable(key, attempt);
    q.active.done(key);
    expect(q.unschedulable()).toEqual([]);
    expect(q.active.length).toBe(1);
    q.shutDown();
  });

  it('tries a changed Part again at once, and forgets a deleted one', () => {
    const q = new SchedulingQueue();
    q.addUnschedulable('ns/a', q.attempt());
    q.addUnschedulable('ns/b', q.attempt());
    q.add('ns/a');
    q.delete('ns/b');
    expect(q.unschedulable()).toEqual([]);
    expect(q.active.length).toBe(1);
    q.shutDown();
  });
});

describe('SchedulerCache', () => {
  it('counts bound Parts and assumed ones the informer has not shown bound, each once', () => {
    let parts = [part('a', 100, 'm1'), part('b', 200), part('c', 300)];
    const cache = new SchedulerCache(() => parts);
    expect(cache.usage()).toEqual(new Map([['m1', 100]]));
    cache.assume('ns/b', 'm1', 200);
    cache.assume('ns/c', 'm2', 300);
    expect(cache.usage()).toEqual(
      new Map([
        ['m1', 300],
        ['m2', 300],
      ]),
    );
    // The informer catches up with b: counted from there, not twice.
    parts = [part('a', 100, 'm1'), part('b', 200, 'm1'), part('c', 300)];
    expect(cache.usage().get('m1')).toBe(300);
    cache.observe(parts[1] as Part);
    expect(cache.isAssumed('ns/b')).toBe(false);
    // c's bind failed.
    cache.forget('ns/c');
    expect(cache.usage()).toEqual(new Map([['m1', 300]]));
    expect(cache.assumedCount).toBe(0);
  });
});
