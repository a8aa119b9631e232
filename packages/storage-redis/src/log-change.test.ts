import { storageKeyOf } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { parseLogEntries, parseXread, revisionOfId } from './log-change.ts';

describe('log entries', () => {
  it('reads the revision from an entry id', () => {
    expect(revisionOfId('42-0')).toBe(42);
    expect(revisionOfId('7')).toBe(7);
  });

  it('parses creates, updates and deletes, decoding objects lazily at the entry revision', () => {
    const [create, update, del] = parseLogEntries([
      ['5-0', ['k', '/r/a', 'v', '{"metadata":{"name":"a"},"n":1}']],
      ['6-0', ['k', '/r/a', 'v', '{"metadata":{"name":"a"},"n":2}', 'p', '{"metadata":{"name":"a"},"n":1}']],
      ['7-0', ['k', '/r/a', 'p', '{"metadata":{"name":"a"},"n":2}']],
    ]);
    expect(create?.rev).toBe(5);
    expect(create?.prevObject).toBeNull();
    expect(create?.object).toEqual({ metadata: { name: 'a', resourceVersion: '5' }, n: 1 });
    expect(update?.object).toEqual({ metadata: { name: 'a', resourceVersion: '6' }, n: 2 });
    expect(update?.prevObject).toEqual({ metadata: { name: 'a', resourceVersion: '6' }, n: 1 });
    expect(del?.object).toBeNull();
    expect(del?.prevObject).toEqual({ metadata: { name: 'a', resourceVersion: '7' }, n: 2 });
    // Both states carry the entry's key.
    expect(storageKeyOf(update?.object as object)).toBe('/r/a');
    expect(storageKeyOf(update?.prevObject as object)).toBe('/r/a');
    // Decoded once and shared, frozen.
    expect(update?.object).toBe(update?.object);
    expect(Object.isFrozen(update?.object)).toBe(true);
  });

  it('takes the entries of an XREAD reply, and nothing from a timed-out one', () => {
    expect(parseXread(null)).toEqual([]);
    expect(parseXread([['kapi:log', [['3-0', ['k', '/x', 'v', '{}']]]]]).map((c) => [c.rev, c.key])).toEqual([[3, '/x']]);
  });
});
