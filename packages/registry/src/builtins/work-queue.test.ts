import { realClock } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.ts';

describe('WorkQueue.idle', () => {
  it('resolves once every queued key, and keys queued while syncing, were synced', async () => {
    const synced: string[] = [];
    const queue = new WorkQueue({
      clock: realClock,
      retryAfterMs: 10_000,
      onError: () => {},
      sync: async (key) => {
        await new Promise((r) => setTimeout(r, 5));
        synced.push(key);
        if (key === 'a') queue.add('c');
      },
    });
    queue.open();
    await queue.idle();
    queue.add('a');
    queue.add('b');
    await queue.idle();
    expect(synced).toEqual(['a', 'b', 'c']);
    queue.close();
  });

  it('does not wait for a failed key’s retry', async () => {
    const queue = new WorkQueue({
      clock: realClock,
      retryAfterMs: 60_000,
      onError: () => {},
      sync: async () => {
        throw new Error('boom');
      },
    });
    queue.open();
    queue.add('a');
    await queue.idle();
    queue.close();
  });
});
