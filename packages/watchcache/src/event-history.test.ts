import { toStatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { CacheEvent } from './cache-event.ts';
import { EventHistory } from './event-history.ts';

const ev = (rev: number) =>
  new CacheEvent('ADDED', `/k/${rev}`, rev, { obj: { metadata: { name: String(rev), resourceVersion: String(rev) } }, prev: null });

function fill(h: EventHistory, from: number, to: number, at: (rev: number) => number): void {
  for (let rev = from; rev <= to; rev++) h.add(ev(rev), at(rev));
}

describe('EventHistory', () => {
  it('grows from 100 while its oldest event is younger than 75 s, up to 100·1024', () => {
    const h = new EventHistory();
    h.reset(0);
    expect(h.capacity).toBe(100);
    fill(h, 1, 100, () => 0);
    expect(h.capacity).toBe(100);
    h.add(ev(101), 74_999);
    expect(h.capacity).toBe(200);
    expect(h.size).toBe(101);
    fill(h, 102, 110_000, () => 75_000);
    expect(h.capacity).toBe(100 * 1024);
    expect(h.size).toBe(100 * 1024);
    expect(h.since(110_000 - 100 * 1024)[0]?.rev).toBe(110_001 - 100 * 1024);
  });

  it('keeps its capacity while old events drop out, and halves when its newest quarter is stale', () => {
    const h = new EventHistory();
    h.reset(0);
    fill(h, 1, 100, () => 0);
    h.add(ev(101), 80_000); // the oldest is 80 s old: no growth, the oldest event drops out
    expect(h.capacity).toBe(100);
    expect(h.size).toBe(100);
    const grown = new EventHistory();
    grown.reset(0);
    fill(grown, 1, 400, (rev) => rev); // 400 events in 0.4 s: 100 → 200 → 400
    expect(grown.capacity).toBe(400);
    grown.add(ev(401), 100_000); // even the newest quarter is 100 s old
    expect(grown.capacity).toBe(200);
    expect(grown.size).toBe(200);
    expect(grown.since(201)[0]?.rev).toBe(202);
    expect(() => grown.since(200)).toThrow('too old resource version: 200 (201)');
  });

  it('serves every event after N, and 410 "too old resource version: N (M)" from before what it holds', () => {
    const h = new EventHistory({ minCapacity: 3, maxCapacity: 3 });
    h.reset(10);
    expect(h.since(10)).toEqual([]);
    expect(() => h.since(9)).toThrow('too old resource version: 9 (10)');
    fill(h, 11, 13, () => 0);
    expect(h.since(10).map((e) => e.rev)).toEqual([11, 12, 13]);
    expect(h.since(12).map((e) => e.rev)).toEqual([13]);
    expect(h.since(99)).toEqual([]);
    h.add(ev(14), 0);
    const err = (() => {
      try {
        h.since(10);
      } catch (e) {
        return e;
      }
    })();
    const st = toStatusError(err);
    expect(st.code).toBe(410);
    expect(st.reason).toBe('Expired');
    expect(st.message).toBe('too old resource version: 10 (11)');
    expect(h.since(11).map((e) => e.rev)).toEqual([12, 13, 14]);
    h.reset(20);
    expect(() => h.since(14)).toThrow('too old resource version: 14 (20)');
  });

  it('forgets the events up to a revision: a watch from before it is 410, one from it on is served', () => {
    const h = new EventHistory({ minCapacity: 4, maxCapacity: 4 });
    h.reset(10);
    fill(h, 11, 14, () => 0);
    h.forgetThrough(12);
    expect(h.size).toBe(2);
    expect(() => h.since(11)).toThrow('too old resource version: 11 (12)');
    expect(h.since(12).map((e) => e.rev)).toEqual([13, 14]);
    // Through the newest event: nothing left, a watch from it still served.
    h.forgetThrough(14);
    expect(h.size).toBe(0);
    expect(h.since(14)).toEqual([]);
    expect(() => h.since(13)).toThrow('too old resource version: 13 (14)');
    // A window that already starts later is left alone.
    fill(h, 15, 18, () => 0);
    h.add(ev(19), 0); // 15 drops out: the window starts after 15
    h.forgetThrough(12);
    expect(h.since(15).map((e) => e.rev)).toEqual([16, 17, 18, 19]);
    expect(() => h.since(14)).toThrow('too old resource version: 14 (15)');
  });

  it('forgets nothing before its first list', () => {
    const h = new EventHistory();
    h.forgetThrough(5);
    expect(() => h.since(5)).toThrow('too old resource version: 5 (0)');
  });

  it('holds at most maxBytes of objects (their JSON size): the oldest drop out, the newest always stays', () => {
    const sized = (rev: number, bytes: number) =>
      new CacheEvent('ADDED', `/k/${rev}`, rev, { obj: { metadata: { name: 'x'.repeat(bytes - 24) } }, prev: null });
    const h = new EventHistory({ minCapacity: 100, maxBytes: 300 });
    h.reset(0);
    expect(JSON.stringify(sized(1, 100).obj)).toHaveLength(100);
    for (let rev = 1; rev <= 5; rev++) h.add(sized(rev, 100), 0);
    expect(h.size).toBe(3);
    expect(h.bytes).toBe(300);
    expect(h.since(2).map((e) => e.rev)).toEqual([3, 4, 5]);
    expect(() => h.since(1)).toThrow('too old resource version: 1 (2)');
    h.add(sized(6, 1000), 0); // larger than the bound on its own: only it stays
    expect(h.since(5).map((e) => e.rev)).toEqual([6]);
    expect(h.bytes).toBe(1000);
    h.forgetThrough(6);
    expect(h.bytes).toBe(0);
  });
});
