import { MAX_JSON_DEPTH, stringifyJson } from '@kapi/apimachinery';
import { deepFreeze } from '@kapi/storage';
import { onEncode } from '@kapi/watchcache';
import { describe, expect, it } from 'vitest';
import { compactJSON, encodeBody } from './response.ts';

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

describe('objects nested as deep as a request may be (10,000 levels), past the native encoders', () => {
  /** An object `depth` levels deep: `{"metadata":…,"spec":{"a":{"a":…{"z":1,"y":[]}…}}}`. */
  const deep = (depth: number): Record<string, unknown> => {
    let v: Record<string, unknown> = { z: 1, y: [] };
    for (let i = 2; i < depth; i++) v = { a: v };
    return { metadata: { name: 'd' }, spec: v };
  };
  const obj = deep(MAX_JSON_DEPTH);
  const json = stringifyJson(obj);

  it('compact JSON, for a single object, a frozen one and a list', () => {
    expect(() => JSON.stringify(obj)).toThrow(RangeError);
    expect(encodeBody(obj, 'application/json', false)).toBe(json);
    expect(text(compactJSON(obj))).toBe(json);
    expect(text(compactJSON({ kind: 'List', items: [obj] }))).toBe(`{"kind":"List","items":[${json}]}`);
    const shared = deepFreeze(deep(MAX_JSON_DEPTH));
    expect(text(compactJSON(shared))).toBe(json);
    expect(text(compactJSON({ kind: 'List', items: [shared, shared] }))).toBe(`{"kind":"List","items":[${json},${json}]}`);
  });

  it('pretty JSON, indented as JSON.stringify(v, null, 2) would', () => {
    // 4,600 levels: past JSON.stringify's reach, and a tenth of the text 10,000 indented levels make.
    const o = deep(4_600);
    const out = encodeBody(o, 'application/json', true);
    expect(out.startsWith('{\n  "metadata": {\n    "name": "d"\n  },\n  "spec": {\n    "a": {\n')).toBe(true);
    // The innermost object is level 4,600: its members are indented 9,200 spaces.
    expect(out).toContain(`{\n${' '.repeat(9_200)}"z": 1,\n${' '.repeat(9_200)}"y": []\n${' '.repeat(9_198)}}\n`);
    expect(out.endsWith('\n  }\n}\n')).toBe(true);
    expect(stringifyJson(JSON.parse(out))).toBe(stringifyJson(o));
  });

  it('YAML: flow style (JSON, keys sorted) where the yaml package gives up, block style otherwise', () => {
    const out = encodeBody(obj, 'application/yaml', false);
    expect(out).toBe(`${json.replace('{"z":1,"y":[]}', '{"y":[],"z":1}')}\n`);
    expect(encodeBody(deep(3), 'application/yaml', false)).toBe('metadata:\n  name: d\nspec:\n  a:\n    y: []\n    z: 1\n');
  });
});
