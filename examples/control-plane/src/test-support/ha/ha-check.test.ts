import { describe, expect, it } from 'vitest';
import type { AckedWrite } from './config-map-writer.ts';
import { checkFinalList, checkWatcher, type WatchRecord } from './ha-check.ts';

// The HA test's verdicts must find what they claim to find: a "0 gaps" that could never be anything else proves nothing.

function write(name: string, seq: number, rv: number): AckedWrite {
  return {
    name,
    seq,
    rv: BigInt(rv),
    shows: String(seq),
    startedAt: 0,
    ackedAt: 0,
    via: seq === 0 ? 'create' : 'update',
    retries: 0,
    writer: 0,
    server: 's',
  };
}

const acked = [write('a', 0, 10), write('b', 0, 11), write('a', 1, 12), write('b', 1, 13), write('a', 2, 14)];

function record(over: Partial<WatchRecord>): WatchRecord {
  return { events: [], relists: [], startRV: 9n, lastRV: 14n, outOfOrder: 0, resumes: 0, errors: new Map(), ...over };
}

const seqOf = new Map(acked.map((a) => [`${a.name}@${a.rv}`, String(a.seq)]));
const ev = (name: string, rv: number, seq = seqOf.get(`${name}@${rv}`)) => ({ type: 'MODIFIED' as const, name, rv: BigInt(rv), seq });

describe('checkWatcher', () => {
  it('passes a watcher that saw every acknowledged write after its list once', () => {
    const f = checkWatcher('s', record({ events: [ev('a', 10), ev('b', 11), ev('a', 12), ev('b', 13), ev('a', 14)] }), acked);
    expect(f).toMatchObject({ gaps: 0, duplicates: 0, unknown: 0 });
  });

  it('counts a missed write as a gap, a repeated one as a duplicate, one nobody acknowledged as unknown', () => {
    const f = checkWatcher('s', record({ events: [ev('a', 10), ev('b', 11), ev('b', 11), ev('b', 13), ev('a', 14), ev('c', 15)] }), acked);
    expect(f).toMatchObject({ gaps: 1, duplicates: 1, unknown: 1 });
    expect(f.samples).toContain('gap update a seq 1 rv 12 (watcher at 14)');
  });

  it('counts an event whose content is not the write of its resourceVersion as unknown', () => {
    const f = checkWatcher('s', record({ events: [ev('a', 10), ev('b', 11), ev('a', 12, '2'), ev('b', 13), ev('a', 14)] }), acked);
    // …and the write itself never arrived.
    expect(f).toMatchObject({ gaps: 1, unknown: 1 });
  });

  it('accepts writes a relist after 410 covers, only when the list shows that write or a later one', () => {
    const covered = record({
      events: [ev('a', 10), ev('b', 11), ev('a', 14)],
      relists: [
        {
          fromRV: 11n,
          toRV: 13n,
          items: new Map([
            ['a', 12n],
            ['b', 13n],
          ]),
        },
      ],
    });
    expect(checkWatcher('s', covered, acked)).toMatchObject({ gaps: 0, relists: 1 });
    const stale = record({
      events: [ev('a', 10), ev('b', 11), ev('a', 14)],
      relists: [
        {
          fromRV: 11n,
          toRV: 13n,
          items: new Map([
            ['a', 12n],
            ['b', 11n],
          ]),
        },
      ],
    });
    expect(checkWatcher('s', stale, acked).gaps).toBe(1);
  });

  it('expects nothing from before the first list', () => {
    expect(checkWatcher('s', record({ startRV: 13n, events: [ev('a', 14)] }), acked).gaps).toBe(0);
  });
});

describe('checkFinalList', () => {
  it('counts acknowledged writes the final list does not show', () => {
    expect(
      checkFinalList(
        new Map([
          ['a', { rv: 14n, seq: 2 }],
          ['b', { rv: 13n, seq: 1 }],
        ]),
        acked,
      ),
    ).toMatchObject({ lost: 0, mismatched: 0 });
    const lost = checkFinalList(new Map([['a', { rv: 12n, seq: 1 }]]), acked);
    expect(lost).toMatchObject({ lost: 3, mismatched: 0 });
    expect(
      checkFinalList(
        new Map([
          ['a', { rv: 15n, seq: 2 }],
          ['b', { rv: 13n, seq: 1 }],
        ]),
        acked,
      ),
    ).toMatchObject({
      lost: 0,
      mismatched: 1,
    });
  });
});

describe('deletes (their resourceVersion unknown)', () => {
  const del = (name: string, seq: number, shows: number): AckedWrite => ({
    ...write(name, seq, 0),
    rv: undefined,
    shows: String(shows),
    via: 'delete',
  });
  const writes = [write('a', 0, 10), write('a', 1, 12), del('a', 2, 1), write('a', 3, 20)];
  const deleted = (rv: number, seq = '1') => ({ type: 'DELETED' as const, name: 'a', rv: BigInt(rv), seq });
  const put = (rv: number, seq: string) => ({ type: 'MODIFIED' as const, name: 'a', rv: BigInt(rv), seq });

  it('a DELETED event between the writes before and after the delete is the delete', () => {
    const f = checkWatcher('s', record({ events: [put(10, '0'), put(12, '1'), deleted(15), put(20, '3')], lastRV: 20n }), writes);
    expect(f).toMatchObject({ gaps: 0, duplicates: 0, unknown: 0 });
  });

  it('a missing DELETED event is a gap; one out of place or with other content is unknown', () => {
    expect(checkWatcher('s', record({ events: [put(10, '0'), put(12, '1'), put(20, '3')] }), writes).gaps).toBe(1);
    const misplaced = checkWatcher('s', record({ events: [put(10, '0'), put(12, '1'), put(20, '3'), deleted(25)] }), writes);
    expect(misplaced).toMatchObject({ gaps: 1, unknown: 1 });
    const otherContent = checkWatcher('s', record({ events: [put(10, '0'), put(12, '1'), deleted(15, '0'), put(20, '3')] }), writes);
    expect(otherContent).toMatchObject({ gaps: 1, unknown: 1 });
  });

  it('a relist without the object covers its delete', () => {
    const f = checkWatcher(
      's',
      record({ events: [put(10, '0'), put(12, '1'), put(20, '3')], relists: [{ fromRV: 12n, toRV: 18n, items: new Map() }] }),
      writes,
    );
    expect(f.gaps).toBe(0);
  });

  it('the final list must not show what was deleted last', () => {
    const deletedLast = writes.slice(0, 3);
    expect(checkFinalList(new Map(), deletedLast).lost).toBe(0);
    expect(checkFinalList(new Map([['a', { rv: 12n, seq: 1 }]]), deletedLast).lost).toBe(1);
    expect(checkFinalList(new Map(), writes).lost).toBe(1);
  });
});
