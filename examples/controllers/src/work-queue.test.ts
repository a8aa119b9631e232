import { FakeClock } from '@kapi/apimachinery';
import { expect, test } from 'vitest';
import { WorkQueue } from './work-queue.ts';

test('a key is queued once however often it is added, in order of first add', async () => {
  const q = new WorkQueue();
  q.add('a');
  q.add('b');
  q.add('a');
  expect(q.length).toBe(2);
  expect(await q.get()).toBe('a');
  expect(await q.get()).toBe('b');
});

test('a key added while processing is not handed out again until done, then queued once', async () => {
  const q = new WorkQueue();
  q.add('a');
  const key = await q.get();
  q.add('a');
  q.add('a');
  expect(q.length).toBe(0);
  let second: string | undefined;
  void q.get().then((k) => {
    second = k;
  });
  await Promise.resolve();
  expect(second).toBeUndefined();
  q.done(key as string);
  await Promise.resolve();
  expect(second).toBe('a');
});

test('a waiting get receives the next key added', async () => {
  const q = new WorkQueue();
  const next = q.get();
  q.add('x');
  expect(await next).toBe('x');
});

test('rate-limited adds back off exponentially up to the cap; forget starts over', async () => {
  const clock = new FakeClock();
  const q = new WorkQueue({ clock, baseDelayMs: 5, maxDelayMs: 20 });
  const delays: number[] = [];
  for (let i = 0; i < 4; i++) {
    const start = clock.now();
    q.addRateLimited('k');
    for (let t = 0; t < 100 && q.length === 0; t++) clock.advance(1);
    delays.push(clock.now() - start);
    q.done((await q.get()) as string);
  }
  expect(delays).toEqual([5, 10, 20, 20]);
  expect(q.retries('k')).toBe(4);
  q.forget('k');
  expect(q.retries('k')).toBe(0);
});

test('addAfter keeps the earlier of two times for a waiting key', () => {
  const clock = new FakeClock();
  const q = new WorkQueue({ clock });
  q.addAfter('k', 100);
  q.addAfter('k', 10);
  clock.advance(10);
  expect(q.length).toBe(1);
  q.addAfter('j', 10);
  q.addAfter('j', 100);
  clock.advance(10);
  expect(q.length).toBe(2);
  clock.advance(100);
  expect(q.length).toBe(2);
});

test('shutDown resolves waiting gets with undefined and cancels delayed adds', async () => {
  const clock = new FakeClock();
  const q = new WorkQueue({ clock });
  const waiting = q.get();
  q.addAfter('later', 10);
  q.shutDown();
  expect(await waiting).toBeUndefined();
  clock.advance(10);
  q.add('more');
  expect(q.length).toBe(0);
  expect(await q.get()).toBeUndefined();
});
