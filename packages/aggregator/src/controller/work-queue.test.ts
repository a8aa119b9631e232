import { realClock } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.ts';

describe('WorkQueue', () => {
  it('with several workers, a name slow to handle does not hold the others', async () => {
    const handled: string[] = [];
    let releaseSlow!: () => void;
    const slowHeld = new Promise<void>((resolve) => (releaseSlow = resolve));
    let fastDone!: () => void;
    const fast = new Promise<void>((resolve) => (fastDone = resolve));
    const queue = new WorkQueue(
      async (name) => {
        if (name === 'slow') await slowHeld;
        handled.push(name);
        if (name === 'fast') fastDone();
      },
      realClock,
      () => {},
      1000,
      2,
    );
    queue.add('slow');
    queue.add('fast');
    queue.start();
    // 'fast' is handled while 'slow' is still held (with one worker this would wait forever).
    await fast;
    expect(handled).toEqual(['fast']);
    releaseSlow();
    await slowHeld;
    await new Promise((r) => setImmediate(r));
    expect(handled).toEqual(['fast', 'slow']);
    queue.stop();
  });

  it('never hands one name to two workers: queued again while handled, it is handled again after', async () => {
    let active = 0;
    let most = 0;
    let runs = 0;
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    let doneTwice!: () => void;
    const twice = new Promise<void>((resolve) => (doneTwice = resolve));
    const queue = new WorkQueue(
      async () => {
        active++;
        most = Math.max(most, active);
        if (runs === 0) await first;
        active--;
        if (++runs === 2) doneTwice();
      },
      realClock,
      () => {},
      1000,
      3,
    );
    queue.start();
    queue.add('a');
    queue.add('a');
    queue.add('a');
    release();
    await twice;
    expect(most).toBe(1);
    expect(runs).toBe(2);
    queue.stop();
  });
});
