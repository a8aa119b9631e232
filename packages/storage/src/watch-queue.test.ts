import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { WatchQueue } from './watch-queue.ts';

const ev = (name: string): WatchEvent => ({ type: 'ADDED', object: { metadata: { name } } as KubeObject });

async function drain(q: AsyncIterable<WatchEvent>): Promise<string[]> {
  const out: string[] = [];
  for await (const e of q) out.push(e.type === 'ERROR' ? `ERROR:${e.object.code}` : (e.object.metadata.name ?? ''));
  return out;
}

describe('WatchQueue', () => {
  it('delivers queued events in order, then ends after end()', async () => {
    const q = new WatchQueue();
    q.push(ev('a'));
    q.push(ev('b'));
    q.end();
    expect(await drain(q)).toEqual(['a', 'b']);
  });

  it('wakes a waiting reader', async () => {
    const q = new WatchQueue();
    const first = q.next();
    q.push(ev('x'));
    expect((await first).value).toMatchObject({ type: 'ADDED' });
  });

  it('stop() drops queued events and resolves a waiting reader as done', async () => {
    const q = new WatchQueue();
    const waiting = q.next();
    q.stop();
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(q.push(ev('late'))).toBe(false);
    expect(await q.next()).toEqual({ value: undefined, done: true });
  });

  it('fail() sends one ERROR event and ends; nothing follows it', async () => {
    const q = new WatchQueue();
    q.push(ev('a'));
    q.fail({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 410, reason: 'Expired' });
    expect(q.push(ev('b'))).toBe(false);
    expect(await drain(q)).toEqual(['a', 'ERROR:410']);
  });

  it('an aborted signal ends the watch, and onClose runs once', async () => {
    const ac = new AbortController();
    let closed = 0;
    const q = new WatchQueue({ signal: ac.signal, onClose: () => closed++ });
    const waiting = q.next();
    ac.abort();
    q.stop();
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(closed).toBe(1);
  });

  it('an already-aborted signal gives an ended watch', () => {
    const q = new WatchQueue({ signal: AbortSignal.abort() });
    expect(q.ended).toBe(true);
  });

  it('breaking out of for-await stops the watch', async () => {
    let closed = false;
    const q = new WatchQueue({ onClose: () => (closed = true) });
    q.push(ev('a'));
    q.push(ev('b'));
    for await (const _ of q) break;
    expect(closed).toBe(true);
    expect(q.ended).toBe(true);
  });

  it('a reader that stops reading is ended at maxQueued instead of growing without bound', async () => {
    const q = new WatchQueue({ maxQueued: 3 });
    for (let i = 0; i < 3; i++) expect(q.push(ev(String(i)))).toBe(true);
    expect(q.push(ev('overflow'))).toBe(false);
    expect(q.ended).toBe(true);
    expect(await drain(q)).toEqual(['0', '1', '2']);
  });

  it('rejects a second concurrent next()', async () => {
    const q = new WatchQueue();
    void q.next();
    await expect(q.next()).rejects.toThrow(/concurrent/);
    q.stop();
  });

  it('keeps memory bounded while a long stream is read', async () => {
    const q = new WatchQueue();
    for (let i = 0; i < 5000; i++) q.push(ev(String(i)));
    for (let i = 0; i < 4000; i++) await q.next();
    expect(q.queued).toBe(1000);
    const next = await q.next();
    expect(next.value?.type === 'ADDED' && next.value.object.metadata.name).toBe('4000');
  });
});
