import { describe, expect, it } from 'vitest';
import { duplicateFieldMessage, duplicateKeysIn, parseJsonDetectingDuplicates } from './json-decode.ts';
import { isBadRequest, StatusError } from './status-error.ts';

const dups = (text: string): string[] => parseJsonDetectingDuplicates(text).duplicates;

describe('parseJsonDetectingDuplicates', () => {
  it('gives what JSON.parse gives, and no duplicates for a clean body', () => {
    const text = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"n":[1,2.5e3,-0,true,false,null,"x"]}}';
    expect(parseJsonDetectingDuplicates(text)).toEqual({ value: JSON.parse(text), duplicates: [] });
  });

  it('reports a top-level and a nested duplicate by field path; the last value wins', () => {
    const r = parseJsonDetectingDuplicates('{"kind":"A","kind":"B","spec":{"replicas":1,"replicas":3}}');
    expect(r.duplicates).toEqual(['kind', 'spec.replicas']);
    expect(r.value).toEqual({ kind: 'B', spec: { replicas: 3 } });
  });

  it('paths duplicates inside arrays of objects with [index], as kube does (spec.ports[1].hostPort)', () => {
    const text = `{"spec":{"ports":[{"p":1},{"name":"x","hostPort":1,"hostPort":2}],"m":[[{"a":1,"a":2}]]}}`;
    expect(dups(text)).toEqual(['spec.ports[1].hostPort', 'spec.m[0][0].a']);
  });

  it('reports duplicates in document order, kube-style, even when the duplicated value is a container', () => {
    const text = '{"metadata":{"name":"a","name":"b"},"spec":{"x":{"y":1},"k":1,"x":{"z":{"w":1,"w":2}}}}';
    expect(dups(text)).toEqual(['metadata.name', 'spec.x', 'spec.x.z.w']);
  });

  it('reports a key repeated many times once', () => {
    expect(dups('{"a":1,"a":2,"a":3,"b":{"c":1,"c":1,"c":1}}')).toEqual(['a', 'b.c']);
  });

  it('keeps sibling objects apart: the same key in two objects is no duplicate', () => {
    expect(dups('{"a":{"x":1},"b":{"x":1},"l":[{"x":1},{"x":2}]}')).toEqual([]);
  });

  it('compares keys after unescaping them, and is not fooled by quotes, braces and commas inside strings', () => {
    expect(dups('{"a":1,"\\u0061":2}')).toEqual(['a']);
    expect(dups('{"q\\"":1,"q\\"":2}')).toEqual(['q"']);
    expect(dups('{"s":"x\\\\","t":"},{\\"s\\":1,","s":[]}')).toEqual(['s']);
    expect(dups('{"k\\\\":1,"k":2}')).toEqual([]);
  });

  it('keeps __proto__ and constructor keys as plain data, duplicates included', () => {
    const r = parseJsonDetectingDuplicates('{"__proto__":{"polluted":1},"__proto__":{"polluted":2},"constructor":1}');
    expect(r.duplicates).toEqual(['__proto__']);
    const v = r.value as Record<string, unknown>;
    expect(Object.hasOwn(v, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(v, '__proto__')?.value).toEqual({ polluted: 2 });
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('takes scalars, arrays and whitespace-heavy input at the top level', () => {
    expect(parseJsonDetectingDuplicates(' 42 ')).toEqual({ value: 42, duplicates: [] });
    expect(parseJsonDetectingDuplicates('[{"a":1,"a":2}, {"a":1}]').duplicates).toEqual(['[0].a']);
    expect(dups('{\n\t"a" : 1 ,\r\n "a"\t:\n[ ] }')).toEqual(['a']);
  });

  it('survives nesting JSON.parse accepts, without recursion', () => {
    const depth = 5000;
    const text = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    expect(dups(text)).toEqual([]);
  });

  it('turns malformed JSON into a 400 BadRequest saying why', () => {
    for (const bad of ['', '{', '{"a":1,}', '{"a" 1}', "{'a':1}", '{"a":1} x', 'nul']) {
      let err: unknown;
      try {
        parseJsonDetectingDuplicates(bad);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(StatusError);
      expect(isBadRequest(err)).toBe(true);
      expect((err as StatusError).status.code).toBe(400);
      expect((err as StatusError).message).toMatch(/^json parse error: ./);
    }
  });

  it('caps the number of reported duplicates at 100, as sigs.k8s.io/json caps strict errors', () => {
    const obj = Array.from({ length: 150 }, (_, i) => `"k${i}":1,"k${i}":2`).join(',');
    const r = dups(`{${obj}}`);
    expect(r).toHaveLength(100);
    expect(r[0]).toBe('k0');
  });

  it('parses a 1 MB body of nested objects and arrays, finding its one duplicate', () => {
    const item = (i: number) => `{"name":"item-${i}","labels":{"app":"web","tier":"t${i}"},"ports":[{"p":${i}},{"q":"s\\"${i}"}]}`;
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < 1_000_000; i++) {
      const s = item(i);
      parts.push(s);
      size += s.length + 1;
    }
    const text = `{"items":[${parts.join(',')}],"kind":"List","kind":"List"}`;
    expect(text.length).toBeGreaterThanOrEqual(1_000_000);
    const r = parseJsonDetectingDuplicates(text);
    expect(r.duplicates).toEqual(['kind']);
    expect((r.value as { items: unknown[] }).items).toHaveLength(parts.length);
  });

  it("with rawFieldsV1, skips the keys of managedFields entries' fieldsV1 only (raw bytes to a built-in kind), still counting depth", () => {
    const fv = '{"f:data":{"f:a":{}},"f:data":{".":{},"f:b":{}}}';
    const text = `{"metadata":{"managedFields":[{"manager":"m","fieldsV1":${fv},"manager":"n"},{"fieldsV1":${fv}}],"x":{"fieldsV1":${fv}}},"fieldsV1":${fv}}`;
    const raw = parseJsonDetectingDuplicates(text, { rawFieldsV1: true });
    expect(raw.value).toEqual(JSON.parse(text));
    expect(raw.duplicates).toEqual(['metadata.managedFields[0].manager', 'metadata.x.fieldsV1.f:data', 'fieldsV1.f:data']);
    // A custom resource's body (maps): every key is checked.
    expect(dups(text)).toEqual([
      'metadata.managedFields[0].fieldsV1.f:data',
      'metadata.managedFields[0].manager',
      'metadata.managedFields[1].fieldsV1.f:data',
      'metadata.x.fieldsV1.f:data',
      'fieldsV1.f:data',
    ]);
    const deep = `{"metadata":{"managedFields":[{"fieldsV1":${'['.repeat(10_000)}${']'.repeat(10_000)}}]}}`;
    expect(() => parseJsonDetectingDuplicates(deep, { rawFieldsV1: true })).toThrow(StatusError);
  });

  it('ends a skipped fieldsV1 at its own closing brace, whatever brackets and quotes its keys hold', () => {
    const fv = '{"f:a}\\"":{"f:{[":{}},"k:{\\"x\\":\\"]}\\\\\\"}":{"f:b":[]}}';
    const text = `{"metadata":{"managedFields":[{"fieldsV1":${fv},"time":"t","time":"u"}],"name":"a","name":"b"}}`;
    const r = parseJsonDetectingDuplicates(text, { rawFieldsV1: true });
    expect(r.value).toEqual(JSON.parse(text));
    expect(r.duplicates).toEqual(['metadata.managedFields[0].time', 'metadata.name']);
    // Depth counts the skipped containers with the ones around them: 10,000 in all passes, one more does not.
    const nested = (k: number) => `{"metadata":{"managedFields":[{"fieldsV1":${'['.repeat(k)}${']'.repeat(k)}}]}}`;
    expect(() => parseJsonDetectingDuplicates(nested(9_996), { rawFieldsV1: true })).not.toThrow();
    expect(() => parseJsonDetectingDuplicates(nested(9_997), { rawFieldsV1: true })).toThrow(StatusError);
  });
});

describe('duplicateFieldMessage', () => {
  it('words a duplicate as kube-apiserver does', () => {
    expect(duplicateFieldMessage('spec.replicas')).toBe('duplicate field "spec.replicas"');
    // strconv.Quote, not JSON: control characters as \x01, non-printables such as U+00A0 as \u00a0.
    expect(duplicateFieldMessage('a"\u0001\u00a0')).toBe('duplicate field "a\\"\\x01\\u00a0"');
    expect(duplicateFieldMessage('spec.ports[0].hostPort')).toBe('duplicate field "spec.ports[0].hostPort"');
  });
});

describe('duplicateKeysIn', () => {
  it('finds the keys parseJsonDetectingDuplicates finds, in a text its caller already decoded', () => {
    for (const text of [
      '{"a":1,"b":{"c":[{"d":1,"d":2}]},"a":3}',
      '{ "x": 1 }',
      '[{"op":"add","op":"replace"}]',
      '{"s":"\\ud800","s":1}',
    ]) {
      const value = JSON.parse(text);
      expect(duplicateKeysIn(text, value)).toEqual(parseJsonDetectingDuplicates(text).duplicates);
    }
    expect(duplicateKeysIn('[{"op":"add","op":"replace"}]', JSON.parse('[{"op":"add","op":"replace"}]'))).toEqual(['[0].op']);
    const deep = `${'['.repeat(10_001)}${']'.repeat(10_001)}`;
    expect(() => duplicateKeysIn(deep, JSON.parse(deep))).toThrow(StatusError);
  });
});
