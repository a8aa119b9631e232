import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { MvccStore } from './mvcc-store.ts';

const o = (name: string, rev: number): KubeObject => ({ metadata: { name, resourceVersion: String(rev) } });

describe('MvccStore', () => {
  it('keysFrom returns the keys under a prefix from a start key, including unusual characters', () => {
    const s = new MvccStore();
    const keys = ['/a/x', '/a/b', '/a/\uffffz', '/a/\ud83d\ude00', '/a0', '/a/', '/b/a', '/a'];
    for (const k of keys) s.write(k, o(k, s.nextRev), 0);
    expect(s.keysFrom('/a/', '/a/')).toEqual(['/a/', '/a/b', '/a/x', '/a/\ud83d\ude00', '/a/\uffffz']);
    expect(s.keysFrom('/a/b\u0000', '/a/')).toEqual(['/a/x', '/a/\ud83d\ude00', '/a/\uffffz']);
    expect(s.keysFrom('/c', '/c')).toEqual([]);
    expect(s.keysFrom('/z/', '/a/')).toEqual([]);
  });

  it('reads any retained revision and forgets superseded versions and tombstones on compaction', () => {
    const s = new MvccStore();
    s.write('/k', o('v1', 1), 0);
    s.write('/k', o('v2', 2), 0);
    s.write('/k', null, 0);
    s.write('/j', o('j', 4), 0);
    expect(s.at('/k', 1)?.metadata.name).toBe('v1');
    expect(s.at('/k', 2)?.metadata.name).toBe('v2');
    expect(s.at('/k', 3)).toBeNull();
    expect(s.size).toBe(1);
    s.compact(2);
    expect(s.at('/k', 2)?.metadata.name).toBe('v2');
    expect([...s.changesAfter(0)].map((c) => c.rev)).toEqual([2, 3, 4]);
    s.compact(4);
    expect(s.keysFrom('/', '/')).toEqual(['/j']);
    expect([...s.changesAfter(0)].map((c) => c.rev)).toEqual([4]);
  });

  it('revisionAtTime finds the newest write at or before a time', () => {
    const s = new MvccStore();
    s.write('/a', o('a', 1), 100);
    s.write('/b', o('b', 2), 200);
    s.write('/c', o('c', 3), 300);
    expect(s.revisionAtTime(50)).toBe(0);
    expect(s.revisionAtTime(200)).toBe(2);
    expect(s.revisionAtTime(299)).toBe(2);
    expect(s.revisionAtTime(1000)).toBe(3);
  });
});
