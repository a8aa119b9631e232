import { describe, expect, it } from 'vitest';
import { seededRandom as rng } from '../../../scripts/seeded-random.ts';
import { SortedMap } from './sorted-map.ts';

/** The model: one sorted array of [key, value], spliced as the stores used to. */
class Model {
  keys: string[] = [];
  values: number[] = [];
  lb(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.keys[mid] as string) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  set(key: string, v: number): boolean {
    const i = this.lb(key);
    if (this.keys[i] === key) {
      this.values[i] = v;
      return false;
    }
    this.keys.splice(i, 0, key);
    this.values.splice(i, 0, v);
    return true;
  }
  delete(key: string): boolean {
    const i = this.lb(key);
    if (this.keys[i] !== key) return false;
    this.keys.splice(i, 1);
    this.values.splice(i, 1);
    return true;
  }
  /** Indexes of keys ≥ from (at least prefix) that start with prefix. */
  range(prefix: string, from: string): number[] {
    const out: number[] = [];
    for (let i = this.lb(from < prefix ? prefix : from); i < this.keys.length && (this.keys[i] as string).startsWith(prefix); i++)
      out.push(i);
    return out;
  }
}

// Few symbols, so keys collide, nest as prefixes of each other and include the edge code units.
const ALPHABET = ['a', 'b', '/', '\u0000', '\uffff', '\ud83d', '\ude00', 'z'];

function randomKey(r: () => number, maxLen: number): string {
  const len = Math.floor(r() * (maxLen + 1));
  let k = '';
  for (let i = 0; i < len; i++) k += ALPHABET[Math.floor(r() * ALPHABET.length)];
  return k;
}

function expectSame(m: SortedMap<number>, model: Model): void {
  expect(m.size).toBe(model.keys.length);
  expect([...m.keys()]).toEqual(model.keys);
  expect([...m.values()]).toEqual(model.values);
}

function expectRange(m: SortedMap<number>, model: Model, prefix: string, from?: string): void {
  const idx = model.range(prefix, from ?? prefix);
  expect(m.keysWithPrefix(prefix, from)).toEqual(idx.map((i) => model.keys[i]));
  expect(m.valuesWithPrefix(prefix, from)).toEqual(idx.map((i) => model.values[i]));
}

describe('SortedMap', () => {
  it('matches a sorted-array model over thousands of random inserts, replaces, removes and range reads', () => {
    const r = rng(0x5eed);
    const m = new SortedMap<number>();
    const model = new Model();
    // Grow well past several chunks, then shrink to nothing (merges), then grow again.
    const phases = [
      { ops: 12_000, insert: 0.8 },
      { ops: 14_000, insert: 0.15 },
      { ops: 4_000, insert: 0.6 },
    ];
    let op = 0;
    for (const phase of phases) {
      for (let n = 0; n < phase.ops; n++, op++) {
        const x = r();
        if (x < phase.insert) {
          // Replace an existing key now and then.
          const key = model.keys.length > 0 && r() < 0.2 ? (model.keys[Math.floor(r() * model.keys.length)] as string) : randomKey(r, 6);
          expect(m.set(key, op)).toBe(model.set(key, op));
        } else if (x < 0.97) {
          const key = model.keys.length > 0 && r() < 0.8 ? (model.keys[Math.floor(r() * model.keys.length)] as string) : randomKey(r, 6);
          expect(m.delete(key)).toBe(model.delete(key));
        } else {
          const prefix = randomKey(r, 3);
          expectRange(m, model, prefix);
          expectRange(m, model, prefix, prefix + randomKey(r, 3));
          expectRange(m, model, prefix, randomKey(r, 4));
        }
        if (op % 500 === 0) {
          expectSame(m, model);
          const probe = randomKey(r, 6);
          expect(m.rank(probe)).toBe(model.lb(probe));
          expect(m.has(probe)).toBe(model.keys.includes(probe));
          expect(m.get(probe)).toBe(model.keys.includes(probe) ? model.values[model.lb(probe)] : undefined);
        }
      }
      expectSame(m, model);
    }
    for (const key of [...model.keys]) expect(m.delete(key)).toBe(model.delete(key));
    expectSame(m, model);
    expect(m.keysWithPrefix('')).toEqual([]);
  });

  it('reads ranges that cross chunk boundaries, from a start key, with an empty prefix and U+FFFF', () => {
    const keys: string[] = [];
    for (let i = 0; i < 5000; i++) keys.push(`/r/${String(i).padStart(5, '0')}`);
    keys.push('/r', '/r/\uffff', '/r/\uffff\uffff', '/r0', '/q/x', '/r\uffff');
    const m = new SortedMap<number>();
    const model = new Model();
    keys.forEach((k, i) => {
      m.set(k, i);
      model.set(k, i);
    });
    expectSame(m, model);
    expectRange(m, model, '');
    expectRange(m, model, '', '/r/02000');
    expectRange(m, model, '/r/');
    expectRange(m, model, '/r/', '/r/01023\u0000');
    expectRange(m, model, '/r/', '/r/04999');
    expectRange(m, model, '/r/', '/r/05000');
    expectRange(m, model, '/r/\uffff');
    expectRange(m, model, '/r\uffff');
    expectRange(m, model, '/r/0');
    expectRange(m, model, '/r/01');
    expectRange(m, model, '/r/', '/z');
    expectRange(m, model, '/r/', '/');
    expectRange(m, model, '\uffff');
    expect(m.keysWithPrefix('/r/').length).toBe(5002);
    expect(m.keysWithPrefix('/r/', '/r/\uffff')).toEqual(['/r/\uffff', '/r/\uffff\uffff']);
    expect(m.rank('/r/00000')).toBe(2);
    expect(m.rank('\uffff')).toBe(m.size);
  });

  it('builds from sorted keys and rejects unsorted or duplicate ones', () => {
    const keys = Array.from({ length: 3000 }, (_, i) => `/k/${String(i).padStart(4, '0')}`);
    const m = SortedMap.fromSorted(
      keys,
      keys.map((_, i) => i),
    );
    expect(m.size).toBe(3000);
    expect([...m.keys()]).toEqual(keys);
    expect(m.get('/k/1234')).toBe(1234);
    expect(m.set('/k/1234\u0000', -1)).toBe(true);
    expect(m.keysWithPrefix('/k/1234')).toEqual(['/k/1234', '/k/1234\u0000']);
    expect([...m.entries()].slice(0, 2)).toEqual([
      ['/k/0000', 0],
      ['/k/0001', 1],
    ]);
    expect(SortedMap.fromSorted([], []).size).toBe(0);
    expect(() => SortedMap.fromSorted(['/b', '/a'], [1, 2])).toThrow(RangeError);
    expect(() => SortedMap.fromSorted(['/a', '/a'], [1, 2])).toThrow(RangeError);
    m.clear();
    expect(m.size).toBe(0);
    expect(m.get('/k/0000')).toBeUndefined();
  });
});
