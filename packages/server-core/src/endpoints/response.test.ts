import { onEncode } from '@kapi/watchcache';
import { describe, expect, it } from 'vitest';
import { compactJSON } from './response.ts';

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');
const frozen = <T>(v: T): T => {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) frozen(x);
    Object.freeze(v);
  }
  return v;
};

describe('compactJSON', () => {
  it('writes exactly what JSON.stringify writes, for lists, objects and scalars', () => {
    const items = [0, 1, 2].map((i) =>
      frozen({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` }, data: { i: String(i) } }),
    );
    const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7' }, items };
    expect(text(compactJSON(list))).toBe(JSON.stringify(list));
    expect(text(compactJSON({ ...list, items: [] }))).toBe(JSON.stringify({ ...list, items: [] }));
    expect(text(compactJSON({ items }))).toBe(JSON.stringify({ items }));
    expect(text(compactJSON(items[1]))).toBe(JSON.stringify(items[1]));
    const mutable = { apiVersion: 'v1', kind: 'List', items: [{ a: 1 }] };
    expect(text(compactJSON(mutable))).toBe(JSON.stringify(mutable));
    expect(text(compactJSON('x'))).toBe('"x"');
  });

  it('encodes each frozen object once, however many lists and gets send it', () => {
    const items = [0, 1, 2, 3].map((i) => frozen({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` } }));
    let encodes = 0;
    const off = onEncode(() => {
      encodes++;
    });
    try {
      for (let n = 0; n < 5; n++) compactJSON({ apiVersion: 'v1', kind: 'SecretList', metadata: {}, items });
      for (const item of items) compactJSON(item);
    } finally {
      off();
    }
    expect(encodes).toBe(4);
  });
});
