import { type KubeObject, parseLabelSelector } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { KeyValue, WatchEventMessage } from '../client/messages.ts';
import { translateEvent } from './translate-event.ts';

const web = { label: parseLabelSelector('app=web') };

function kv(app: string | undefined, mod: number, created: number, size = 1): KeyValue {
  const obj = { kind: 'Widget', metadata: { name: 'a', ...(app ? { labels: { app } } : {}) }, spec: { size } };
  return {
    key: Buffer.from('/p/a'),
    create_revision: created,
    mod_revision: mod,
    version: 1,
    value: Buffer.from(JSON.stringify(obj)),
    lease: 0,
  };
}

const put = (cur: KeyValue, prev: KeyValue | null = null): WatchEventMessage => ({ type: 'PUT', kv: cur, prev_kv: prev });
const del = (rev: number, prev: KeyValue | null): WatchEventMessage => ({
  type: 'DELETE',
  kv: { key: Buffer.from('/p/a'), create_revision: 0, mod_revision: rev, version: 0, value: Buffer.alloc(0), lease: 0 },
  prev_kv: prev,
});

const summary = (e: ReturnType<typeof translateEvent>) => {
  if (!e || e.type === 'ERROR') return e?.type;
  const o = e.object as KubeObject;
  return `${e.type} ${o.metadata.labels?.app ?? '-'} size=${(o.spec as { size: number }).size} rv=${o.metadata.resourceVersion}`;
};

describe('translateEvent without a predicate', () => {
  it('a creation is ADDED, a change MODIFIED, a delete DELETED with the last state at the delete revision', () => {
    expect(summary(translateEvent('/a', put(kv('db', 5, 5)), undefined))).toBe('ADDED db size=1 rv=5');
    expect(summary(translateEvent('/a', put(kv('db', 6, 5, 2), kv('db', 5, 5)), undefined))).toBe('MODIFIED db size=2 rv=6');
    expect(summary(translateEvent('/a', del(7, kv('db', 6, 5, 2)), undefined))).toBe('DELETED db size=2 rv=7');
  });

  it('a re-creation after a delete is ADDED', () => {
    expect(summary(translateEvent('/a', put(kv('db', 9, 9)), undefined))).toBe('ADDED db size=1 rv=9');
  });
});

describe('translateEvent with a predicate', () => {
  it('starting to match is ADDED; matching before and after is MODIFIED', () => {
    expect(summary(translateEvent('/a', put(kv('web', 6, 5), kv('db', 5, 5)), web))).toBe('ADDED web size=1 rv=6');
    expect(summary(translateEvent('/a', put(kv('web', 5, 5)), web))).toBe('ADDED web size=1 rv=5');
    expect(summary(translateEvent('/a', put(kv('web', 7, 5, 3), kv('web', 6, 5)), web))).toBe('MODIFIED web size=3 rv=7');
  });

  it('stopping to match is DELETED carrying the old object at the new revision', () => {
    expect(summary(translateEvent('/a', put(kv('db', 8, 5, 4), kv('web', 7, 5, 3)), web))).toBe('DELETED web size=3 rv=8');
  });

  it('matching neither before nor after is nothing', () => {
    expect(translateEvent('/a', put(kv('db', 8, 5), kv(undefined, 7, 5)), web)).toBeUndefined();
    expect(translateEvent('/a', put(kv('db', 5, 5)), web)).toBeUndefined();
    expect(translateEvent('/a', del(9, kv('db', 8, 5)), web)).toBeUndefined();
  });

  it('a delete of a matching object is DELETED', () => {
    expect(summary(translateEvent('/a', del(9, kv('web', 8, 5)), web))).toBe('DELETED web size=1 rv=9');
  });

  it('a change whose previous value was compacted away counts as a change of a matching object', () => {
    expect(summary(translateEvent('/a', put(kv('web', 8, 5)), web))).toBe('MODIFIED web size=1 rv=8');
    expect(translateEvent('/a', put(kv('db', 8, 5)), web)).toBeUndefined();
  });
});

describe('translateEvent failures', () => {
  it('a delete without its previous value cannot be sent', () => {
    expect(() => translateEvent('/a', del(9, null), undefined)).toThrow(/without its previous value/);
  });

  it('an undecodable value is InvalidObject', () => {
    const bad = { ...kv('web', 5, 5), value: Buffer.from('{') };
    expect(() => translateEvent('/a', put(bad), undefined)).toThrow(expect.objectContaining({ code: 'InvalidObject' }));
  });
});
