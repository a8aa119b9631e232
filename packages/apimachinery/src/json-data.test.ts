import { describe, expect, it } from 'vitest';
import {
  checkJsonDepth,
  copyJson,
  exceedsJsonDepth,
  getOwn,
  jsonEqual,
  MAX_JSON_DEPTH,
  renderJson,
  setOwn,
  stringifyJson,
} from './json-data.ts';
import { parseJsonDetectingDuplicates } from './json-decode.ts';
import { StatusError } from './status-error.ts';

/** `{"a":{"a":…1…}}` nested `depth` objects deep, as text. */
const nestedText = (depth: number, open = '{"a":', close = '}'): string => `${open.repeat(depth)}1${close.repeat(depth)}`;

describe('keys are data', () => {
  it('setOwn writes __proto__ as an own key and never changes a prototype', () => {
    const o: Record<string, unknown> = {};
    setOwn(o, '__proto__', { polluted: true });
    setOwn(o, 'constructor', 'c');
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(JSON.stringify(o)).toBe('{"__proto__":{"polluted":true},"constructor":"c"}');
  });

  it('getOwn never reads inherited members', () => {
    expect(getOwn({}, 'constructor')).toBeUndefined();
    expect(getOwn({}, '__proto__')).toBeUndefined();
    expect(getOwn({}, 'toString')).toBeUndefined();
    expect(getOwn(JSON.parse('{"__proto__":1}') as Record<string, number>, '__proto__')).toBe(1);
  });

  it('copyJson keeps __proto__, constructor and prototype keys at every level', () => {
    const text = '{"__proto__":{"__proto__":[{"constructor":{"prototype":1}}]},"x":[null,true,"s",1.5e+300]}';
    const copy = copyJson(JSON.parse(text));
    expect(JSON.stringify(copy)).toBe(text);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });
});

describe('depth', () => {
  it('copies, compares and encodes a value nested to the decoder limit (native structuredClone and JSON.stringify cannot)', () => {
    const text = nestedText(MAX_JSON_DEPTH - 1);
    const value = JSON.parse(text) as unknown;
    expect(() => structuredClone(value)).toThrow(RangeError);
    const copy = copyJson(value);
    expect(jsonEqual(copy, value)).toBe(true);
    expect(stringifyJson(copy)).toBe(text);
    const arrays = nestedText(MAX_JSON_DEPTH - 1, '[', ']');
    expect(stringifyJson(JSON.parse(arrays))).toBe(arrays);
  });

  it('stringifyJson matches JSON.stringify where that one works', () => {
    const deep = (v: unknown) => {
      let x = v;
      for (let i = 0; i < 6000; i++) x = { k: x };
      return x;
    };
    const inner = { a: undefined, b: [undefined, 1, () => 1], c: 'é"\n', d: -0, e: null, __proto__x: { t: true } };
    const expected = nestedText(6000, '{"k":', '}').replace('1', JSON.stringify(inner));
    expect(stringifyJson(deep(inner))).toBe(expected);
  });

  it('exceedsJsonDepth counts levels of objects and arrays', () => {
    expect(exceedsJsonDepth(1, 0)).toBe(false);
    expect(exceedsJsonDepth({}, 0)).toBe(true);
    expect(exceedsJsonDepth({ a: [{}] }, 3)).toBe(false);
    expect(exceedsJsonDepth({ a: [{}] }, 2)).toBe(true);
    expect(exceedsJsonDepth(JSON.parse(nestedText(MAX_JSON_DEPTH)))).toBe(false);
    expect(exceedsJsonDepth(JSON.parse(nestedText(MAX_JSON_DEPTH + 1)))).toBe(true);
  });

  it('checkJsonDepth is a 400 BadRequest beyond 10,000 levels', () => {
    expect(() => checkJsonDepth(JSON.parse(nestedText(MAX_JSON_DEPTH)))).not.toThrow();
    let err: unknown;
    try {
      checkJsonDepth(JSON.parse(nestedText(50000)), 'the patch');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect((err as StatusError).message).toBe('the patch nests deeper than 10000 levels: exceeded max depth');
  });

  it('the JSON decoder refuses nesting beyond 10,000 levels with a 400, objects and arrays alike', () => {
    expect(() => parseJsonDetectingDuplicates(nestedText(MAX_JSON_DEPTH))).not.toThrow();
    for (const text of [nestedText(MAX_JSON_DEPTH + 1), nestedText(50000), nestedText(MAX_JSON_DEPTH + 1, '[', ']')]) {
      let err: unknown;
      try {
        parseJsonDetectingDuplicates(text);
      } catch (e) {
        err = e;
      }
      expect((err as StatusError).status).toMatchObject({
        code: 400,
        reason: 'BadRequest',
        message: 'json parse error: exceeded max depth',
      });
    }
  });

  it('renderJson writes any rendering at the decoder limit', () => {
    const goV = {
      scalar: (v: unknown) => (v === null ? '<nil>' : String(v)),
      keys: (o: Record<string, unknown>) => Object.keys(o).sort(),
      key: (k: string) => `${k}:`,
      array: ['[', ' ', ']'],
      object: ['map[', ' ', ']'],
    } as const;
    expect(renderJson({ b: [1, null], a: { c: true } }, goV)).toBe('map[a:map[c:true] b:[1 <nil>]]');
    const deep = JSON.parse(nestedText(MAX_JSON_DEPTH)) as unknown;
    expect(renderJson(deep, goV)).toBe(`${'map[a:'.repeat(MAX_JSON_DEPTH)}1${']'.repeat(MAX_JSON_DEPTH)}`);
  });
});
