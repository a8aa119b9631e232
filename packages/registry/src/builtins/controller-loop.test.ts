import { FakeClock } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { ControllerLoop, type InformerLoop } from './controller-loop.ts';

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('ControllerLoop', () => {
  it('starts its informers once until stopped, and stopping aborts them and drops queued keys', async () => {
    const synced: string[] = [];
    const loop = new ControllerLoop({ clock: new FakeClock() }, async (key) => void synced.push(key));
    const started: InformerLoop[] = [];
    expect(loop.running).toBe(false);
    loop.start((l) => started.push(l));
    loop.start((l) => started.push(l));
    expect(loop.running).toBe(true);
    expect(started).toHaveLength(1);
    loop.queue.add('a');
    await settle();
    expect(synced).toEqual(['a']);

    loop.stop();
    expect(loop.running).toBe(false);
    expect(started[0]?.signal.aborted).toBe(true);
    loop.queue.add('b');
    await settle();
    expect(synced).toEqual(['a']);

    loop.start((l) => started.push(l));
    expect(started).toHaveLength(2);
    expect(started[1]?.signal.aborted).toBe(false);
    loop.queue.add('c');
    await settle();
    expect(synced).toEqual(['a', 'c']);
    loop.stop();
  });

  it('hands its clock, retry delay and onError to the informers and the queue (defaults: 1000 ms, errors dropped)', async () => {
    const clock = new FakeClock();
    const errors: [unknown, string | undefined][] = [];
    let fail = true;
    const synced: string[] = [];
    const loop = new ControllerLoop({ clock, retryAfterMs: 50, onError: (e, k) => errors.push([e, k]) }, async (key) => {
      synced.push(key);
      if (fail) throw new Error('down');
    });
    let informer: InformerLoop | undefined;
    loop.start((l) => {
      informer = l;
    });
    expect(informer).toMatchObject({ clock, retryAfterMs: 50, onError: loop.onError });
    loop.queue.add('k');
    await settle();
    expect(errors).toEqual([[new Error('down'), 'k']]);
    fail = false;
    clock.advance(49);
    await settle();
    expect(synced).toEqual(['k']);
    clock.advance(1);
    await settle();
    expect(synced).toEqual(['k', 'k']);
    loop.stop();

    const plain = new ControllerLoop({}, async () => {});
    expect(plain.retryAfterMs).toBe(1000);
    expect(() => plain.onError(new Error('x'))).not.toThrow();
  });
});
