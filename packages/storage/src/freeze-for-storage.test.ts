import { describe, expect, it } from 'vitest';
import { freezeForStorage } from './freeze-for-storage.ts';

const fresh = (name: string) =>
  JSON.parse(
    JSON.stringify({
      kind: 'ConfigMap',
      metadata: {
        name,
        namespace: 'default',
        labels: { app: 'web' },
        managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } }],
      },
      data: { a: 'x'.repeat(100) },
      list: [{}, 'default', []],
    }),
  );

describe('freezeForStorage', () => {
  it('freezes everything, and shares empty objects and recurring short strings between objects, values unchanged', () => {
    const a = freezeForStorage(fresh('a'));
    const b = freezeForStorage(fresh('b'));
    expect(a).toEqual(fresh('a'));
    const all = (v: unknown): unknown[] => (typeof v === 'object' && v !== null ? [v, ...Object.values(v).flatMap(all)] : []);
    expect(all(a).every((o) => Object.isFrozen(o))).toBe(true);
    const fields = (o: typeof a) => o.metadata.managedFields[0].fieldsV1['f:data'];
    expect(fields(a)['.']).toBe(fields(b)['f:a']);
    expect(a.list[0]).toBe(fields(b)['.']);
    expect(Object.isFrozen(a.list[2])).toBe(true);
    expect(() => {
      (fields(a)['.'] as Record<string, unknown>).x = 1;
    }).toThrow(TypeError);
    expect(fields(a)['.']).toEqual({});
    // Equal strings either way (sharing is not observable from JavaScript beyond equality).
    expect(b.metadata.namespace).toBe('default');
  });

  it('leaves frozen parts as they are and walks objects nested 10,000 levels', () => {
    const kept = Object.freeze({ k: 'v' });
    const deep: Record<string, unknown> = { kept };
    let cur = deep;
    for (let i = 0; i < 10_000; i++) {
      const next: Record<string, unknown> = { e: {} };
      cur.n = next;
      cur = next;
    }
    freezeForStorage(deep);
    expect(deep.kept).toBe(kept);
    expect(Object.isFrozen(cur) && Object.isFrozen(cur.e)).toBe(true);
  });
});
