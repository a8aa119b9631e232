import { describe, expect, it } from 'vitest';
import { applyJsonPatch, applyMergePatch, createMergePatch, MAX_JSON_PATCH_OPERATIONS } from './patch.ts';
import { StatusError } from './status-error.ts';

/** Runs `fn` and returns the StatusError it throws. */
function statusErrorOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    return e as StatusError;
  }
  throw new Error('expected a StatusError, nothing was thrown');
}

function expectNotApplicable(fn: () => unknown, message: string | RegExp): void {
  const err = statusErrorOf(fn);
  expect(err.code).toBe(422);
  expect(err.reason).toBe('Invalid');
  expect(err.status.status).toBe('Failure');
  if (typeof message === 'string') expect(err.message).toBe(message);
  else expect(err.message).toMatch(message);
  // The library's multi-line dump (operation, tree) never reaches the client.
  expect(err.message).not.toContain('\n');
}

describe('applyJsonPatch: RFC 6902 operations', () => {
  it('add sets a new member, replaces an existing one, and inserts into arrays', () => {
    expect(applyJsonPatch({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }])).toEqual({ foo: 'bar', baz: 'qux' });
    expect(applyJsonPatch({ foo: 'bar' }, [{ op: 'add', path: '/foo', value: 1 }])).toEqual({ foo: 1 });
    expect(applyJsonPatch({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }])).toEqual({ foo: ['bar', 'qux', 'baz'] });
    expect(applyJsonPatch({ foo: ['bar'] }, [{ op: 'add', path: '/foo/1', value: 'end' }])).toEqual({ foo: ['bar', 'end'] });
    expect(applyJsonPatch({ foo: 'bar' }, [{ op: 'add', path: '/child', value: { grand: 'child' } }])).toEqual({
      foo: 'bar',
      child: { grand: 'child' },
    });
  });

  it('"-" appends to an array', () => {
    expect(applyJsonPatch({ a: [1, 2] }, [{ op: 'add', path: '/a/-', value: 3 }])).toEqual({ a: [1, 2, 3] });
    expect(applyJsonPatch({ a: [] }, [{ op: 'add', path: '/a/-', value: ['x'] }])).toEqual({ a: [['x']] });
  });

  it('add at the root replaces the document', () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '', value: [1] }])).toEqual([1]);
  });

  it('remove deletes object members and array elements', () => {
    expect(applyJsonPatch({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }])).toEqual({ foo: 'bar' });
    expect(applyJsonPatch({ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }])).toEqual({ foo: ['bar', 'baz'] });
  });

  it('replace changes a value, including the root', () => {
    expect(applyJsonPatch({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }])).toEqual({ baz: 'boo', foo: 'bar' });
    expect(applyJsonPatch({ a: [1, 2] }, [{ op: 'replace', path: '/a/0', value: 9 }])).toEqual({ a: [9, 2] });
    expect(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }])).toEqual({ b: 2 });
  });

  it('move relocates a value between objects and within arrays', () => {
    const doc = { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } };
    expect(applyJsonPatch(doc, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }])).toEqual({
      foo: { bar: 'baz' },
      qux: { corge: 'grault', thud: 'fred' },
    });
    expect(applyJsonPatch({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }])).toEqual({
      foo: ['all', 'cows', 'eat', 'grass'],
    });
  });

  it('move to the same location changes nothing', () => {
    expect(applyJsonPatch({ a: { b: 1 } }, [{ op: 'move', from: '/a/b', path: '/a/b' }])).toEqual({ a: { b: 1 } });
  });

  it('move judges the target index after the source is removed', () => {
    // After removing /a/0 the array has two elements, so index 3 is out of bounds.
    expectNotApplicable(
      () => applyJsonPatch({ a: [1, 2, 3] }, [{ op: 'move', from: '/a/0', path: '/a/3' }]),
      'json patch operation 0 (move): array index 3 is out of bounds in path "/a/3"',
    );
    expect(applyJsonPatch({ a: [1, 2, 3] }, [{ op: 'move', from: '/a/0', path: '/a/2' }])).toEqual({ a: [2, 3, 1] });
  });

  it('copy duplicates a value by value, not by reference', () => {
    const out = applyJsonPatch({ a: { x: [1] } }, [
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'add', path: '/b/x/-', value: 2 },
    ]);
    expect(out).toEqual({ a: { x: [1] }, b: { x: [1, 2] } });
  });

  it('test passes on equal values (deep, key order ignored) and fails otherwise', () => {
    const doc = { baz: 'qux', foo: ['a', 2, 'c'], obj: { x: 1, y: [true, null] } };
    expect(
      applyJsonPatch(doc, [
        { op: 'test', path: '/baz', value: 'qux' },
        { op: 'test', path: '/foo/1', value: 2 },
        { op: 'test', path: '/obj', value: { y: [true, null], x: 1 } },
        { op: 'test', path: '', value: doc },
      ]),
    ).toEqual(doc);
    expectNotApplicable(
      () => applyJsonPatch({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]),
      'json patch operation 0 (test): test failed: the value at "/baz" is not the expected value',
    );
    expectNotApplicable(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: '1' }]), /test failed/);
  });

  it('a failed test aborts the whole patch', () => {
    const doc = { a: 1 };
    expectNotApplicable(
      () =>
        applyJsonPatch(doc, [
          { op: 'replace', path: '/a', value: 2 },
          { op: 'test', path: '/a', value: 1 },
        ]),
      'json patch operation 1 (test): test failed: the value at "/a" is not the expected value',
    );
    expect(doc).toEqual({ a: 1 });
  });

  it('unescapes ~1 to "/" and ~0 to "~" in reference tokens', () => {
    const doc = { 'a/b': 1, 'm~n': 2, '~1': 3 };
    expect(applyJsonPatch(doc, [{ op: 'replace', path: '/a~1b', value: 10 }])).toEqual({ ...doc, 'a/b': 10 });
    expect(applyJsonPatch(doc, [{ op: 'replace', path: '/m~0n', value: 20 }])).toEqual({ ...doc, 'm~n': 20 });
    // "~01" is "~" then "1", not "/".
    expect(applyJsonPatch(doc, [{ op: 'remove', path: '/~01' }])).toEqual({ 'a/b': 1, 'm~n': 2 });
    expect(applyJsonPatch({}, [{ op: 'add', path: '/x~1y~0z', value: true }])).toEqual({ 'x/y~z': true });
  });

  it('applies operations in order, each seeing the previous result', () => {
    expect(
      applyJsonPatch({ metadata: { labels: { a: 'x' } } }, [
        { op: 'add', path: '/metadata/annotations', value: {} },
        { op: 'add', path: '/metadata/annotations/note', value: 'hi' },
        { op: 'remove', path: '/metadata/labels/a' },
      ]),
    ).toEqual({ metadata: { labels: {}, annotations: { note: 'hi' } } });
  });

  it('an empty patch returns an equal copy', () => {
    const doc = { a: [1, { b: 2 }] };
    const out = applyJsonPatch(doc, []);
    expect(out).toEqual(doc);
    expect(out).not.toBe(doc);
  });

  it('never mutates the document or the patch and shares nothing with them', () => {
    const doc = Object.freeze({ a: Object.freeze([1, 2]), b: Object.freeze({ c: 1 }) });
    const value = { deep: { x: 1 } };
    const patch = [
      { op: 'add', path: '/a/-', value: 3 },
      { op: 'add', path: '/v', value },
      { op: 'remove', path: '/b/c' },
    ];
    const out = applyJsonPatch(doc, patch) as { a: number[]; v: { deep: { x: number } }; b: object };
    expect(out).toEqual({ a: [1, 2, 3], b: {}, v: { deep: { x: 1 } } });
    expect(doc).toEqual({ a: [1, 2], b: { c: 1 } });
    out.v.deep.x = 99;
    expect(value.deep.x).toBe(1);
  });
});

describe('applyJsonPatch: failures', () => {
  it('a patch that is not an array is 400 BadRequest', () => {
    for (const [patch, type] of [
      [{ op: 'add', path: '/a', value: 1 }, 'object'],
      ['[]', 'string'],
      [null, 'null'],
      [undefined, 'undefined'],
    ] as const) {
      const err = statusErrorOf(() => applyJsonPatch({}, patch));
      expect(err.code).toBe(400);
      expect(err.reason).toBe('BadRequest');
      expect(err.message).toBe(`error decoding patch: a JSON patch must be an array of operations, got ${type}`);
    }
  });

  it('an operation that is not an object is 400 BadRequest', () => {
    const err = statusErrorOf(() => applyJsonPatch({}, [{ op: 'add', path: '/a', value: 1 }, 5]));
    expect(err.code).toBe(400);
    expect(err.message).toBe('error decoding patch: operation 1 must be an object, got number');
    expect(statusErrorOf(() => applyJsonPatch({}, [[]])).message).toBe('error decoding patch: operation 0 must be an object, got array');
    expect(statusErrorOf(() => applyJsonPatch({}, [null])).code).toBe(400);
  });

  it('more than 10000 operations is 413, as kube-apiserver limits them', () => {
    expect(MAX_JSON_PATCH_OPERATIONS).toBe(10000);
    const op = { op: 'test', path: '', value: {} };
    expect(
      applyJsonPatch(
        {},
        Array.from({ length: 10000 }, () => op),
      ),
    ).toEqual({});
    const err = statusErrorOf(() =>
      applyJsonPatch(
        {},
        Array.from({ length: 10001 }, () => op),
      ),
    );
    expect(err.code).toBe(413);
    expect(err.reason).toBe('RequestEntityTooLarge');
    expect(err.message).toBe('Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
  });

  it('malformed operations are 422', () => {
    expectNotApplicable(
      () => applyJsonPatch({}, [{ op: 'frobnicate', path: '/a' }]),
      'json patch operation 0: has op "frobnicate", expected one of "add", "remove", "replace", "move", "copy", "test"',
    );
    expectNotApplicable(() => applyJsonPatch({}, [{ path: '/a' }]), /^json patch operation 0: has no "op", expected one of/);
    expectNotApplicable(
      () => applyJsonPatch({}, [{ op: 'remove' }]),
      'json patch operation 0 (remove): "path" must be a string, got undefined',
    );
    expectNotApplicable(
      () => applyJsonPatch({}, [{ op: 'add', path: 5, value: 1 }]),
      'json patch operation 0 (add): "path" must be a string, got number',
    );
    expectNotApplicable(() => applyJsonPatch({}, [{ op: 'add', path: '/a' }]), 'json patch operation 0 (add): missing "value"');
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '/a' }]),
      'json patch operation 0 (replace): missing "value"',
    );
    expectNotApplicable(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a' }]), 'json patch operation 0 (test): missing "value"');
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'move', path: '/b' }]),
      'json patch operation 0 (move): "from" must be a string, got undefined',
    );
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'copy', path: '/b', from: null }]),
      'json patch operation 0 (copy): "from" must be a string, got null',
    );
  });

  it('a value that is not JSON (a function, NaN, undefined in an array) is 422', () => {
    for (const value of [{ x: () => 1 }, [1, undefined], { n: Number.NaN }])
      expectNotApplicable(
        () => applyJsonPatch({}, [{ op: 'add', path: '/a', value }]),
        'json patch operation 0 (add): "value" is not a JSON value',
      );
  });

  it('a null value is a value', () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '/a', value: null }])).toEqual({ a: null });
    expect(applyJsonPatch({ a: null }, [{ op: 'test', path: '/a', value: null }])).toEqual({ a: null });
  });

  it('malformed JSON pointers are 422', () => {
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'remove', path: 'a' }]),
      'json patch operation 0 (remove): "path" is not a valid JSON pointer: "a"',
    );
    expectNotApplicable(() => applyJsonPatch({ a: 1 }, [{ op: 'remove', path: '/a~2' }]), /"path" is not a valid JSON pointer: "\/a~2"/);
    expectNotApplicable(() => applyJsonPatch({ a: 1 }, [{ op: 'remove', path: '/a~' }]), /not a valid JSON pointer/);
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'copy', from: 'a', path: '/b' }]),
      'json patch operation 0 (copy): "from" is not a valid JSON pointer: "a"',
    );
  });

  it('operations on paths that do not exist are 422', () => {
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'remove', path: '/b' }]),
      'json patch operation 0 (remove): doc is missing path "/b"',
    );
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '/b', value: 1 }]),
      'json patch operation 0 (replace): doc is missing path "/b"',
    );
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/b', value: 1 }]),
      'json patch operation 0 (test): doc is missing path "/b"',
    );
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/b/c', value: 1 }]),
      'json patch operation 0 (add): doc is missing path "/b/c"',
    );
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/a/c', value: 1 }]),
      'json patch operation 0 (add): doc is missing path "/a/c": its parent is not an object or array',
    );
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'move', from: '/x', path: '/y' }]),
      'json patch operation 0 (move): "from" doc is missing path "/x"',
    );
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'copy', from: '/x', path: '/y' }]),
      'json patch operation 0 (copy): "from" doc is missing path "/x"',
    );
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'copy', from: '/a', path: '/y/z' }]),
      'json patch operation 0 (copy): doc is missing path "/y/z"',
    );
  });

  it('array indexes must be in range and written without sign or leading zeros', () => {
    const doc = { a: [1, 2] };
    expectNotApplicable(
      () => applyJsonPatch(doc, [{ op: 'add', path: '/a/3', value: 0 }]),
      'json patch operation 0 (add): array index 3 is out of bounds in path "/a/3"',
    );
    expectNotApplicable(
      () => applyJsonPatch(doc, [{ op: 'remove', path: '/a/2' }]),
      'json patch operation 0 (remove): array index 2 is out of bounds in path "/a/2"',
    );
    expectNotApplicable(
      () => applyJsonPatch(doc, [{ op: 'replace', path: '/a/-', value: 0 }]),
      'json patch operation 0 (replace): invalid array index "-" in path "/a/-"',
    );
    expectNotApplicable(
      () => applyJsonPatch(doc, [{ op: 'add', path: '/a/01', value: 0 }]),
      'json patch operation 0 (add): invalid array index "01" in path "/a/01"',
    );
    expectNotApplicable(() => applyJsonPatch(doc, [{ op: 'add', path: '/a/-1', value: 0 }]), /invalid array index "-1"/);
    expectNotApplicable(() => applyJsonPatch(doc, [{ op: 'add', path: '/a/x', value: 0 }]), /invalid array index "x"/);
    expectNotApplicable(() => applyJsonPatch(doc, [{ op: 'test', path: '/a/length', value: 2 }]), /invalid array index "length"/);
  });

  it('the document root cannot be removed', () => {
    expectNotApplicable(
      () => applyJsonPatch({ a: 1 }, [{ op: 'remove', path: '' }]),
      'json patch operation 0 (remove): cannot remove the whole document',
    );
  });

  it('a value cannot be moved into its own child', () => {
    expectNotApplicable(
      () => applyJsonPatch({ a: { b: {} } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]),
      'json patch operation 0 (move): cannot move "/a" into its own child "/a/b/c"',
    );
    expectNotApplicable(() => applyJsonPatch({ a: 1 }, [{ op: 'move', from: '', path: '/a' }]), /cannot move "" into its own child "\/a"/);
  });

  it('reports the index of the failing operation', () => {
    expectNotApplicable(
      () =>
        applyJsonPatch({ a: 1 }, [
          { op: 'add', path: '/b', value: 2 },
          { op: 'remove', path: '/b' },
          { op: 'remove', path: '/b' },
        ]),
      'json patch operation 2 (remove): doc is missing path "/b"',
    );
  });
});

describe('applyJsonPatch: prototype pollution', () => {
  // kube-apiserver (Go) has no prototypes: "/data/__proto__" is a key like any other, and so it is here.
  it('treats __proto__ and constructor/prototype in a path as keys, and never reaches a prototype', () => {
    const out = applyJsonPatch({ a: {} }, [
      { op: 'add', path: '/__proto__', value: { polluted: true } },
      { op: 'add', path: '/__proto__/more', value: 1 },
      { op: 'copy', from: '/__proto__', path: '/a/__proto__' },
      { op: 'add', path: '/constructor', value: { prototype: {} } },
      { op: 'add', path: '/constructor/prototype/polluted', value: true },
      { op: 'test', path: '/a/__proto__/more', value: 1 },
    ]) as object;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe(
      '{"a":{"__proto__":{"polluted":true,"more":1}},"__proto__":{"polluted":true,"more":1},"constructor":{"prototype":{"polluted":true}}}',
    );
    const removed = applyJsonPatch(out, [
      { op: 'remove', path: '/__proto__' },
      { op: 'move', from: '/a/__proto__', path: '/b' },
    ]);
    expect(JSON.stringify(removed)).toBe('{"a":{},"constructor":{"prototype":{"polluted":true}},"b":{"polluted":true,"more":1}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expectNotApplicable(
      () => applyJsonPatch({}, [{ op: 'add', path: '/__proto__/polluted', value: true }]),
      'json patch operation 0 (add): doc is missing path "/__proto__/polluted"',
    );
  });

  it('never follows inherited members such as constructor or toString', () => {
    expectNotApplicable(
      () => applyJsonPatch({}, [{ op: 'add', path: '/constructor/polluted', value: true }]),
      'json patch operation 0 (add): doc is missing path "/constructor/polluted"',
    );
    expect((Object as unknown as Record<string, unknown>).polluted).toBeUndefined();
    expectNotApplicable(
      () => applyJsonPatch({}, [{ op: 'replace', path: '/constructor/name', value: 'x' }]),
      /doc is missing path "\/constructor\/name"/,
    );
    expectNotApplicable(
      () => applyJsonPatch({}, [{ op: 'remove', path: '/toString' }]),
      'json patch operation 0 (remove): doc is missing path "/toString"',
    );
    expectNotApplicable(() => applyJsonPatch({}, [{ op: 'test', path: '/hasOwnProperty', value: {} }]), /doc is missing path/);
    expectNotApplicable(
      () => applyJsonPatch({}, [{ op: 'copy', from: '/constructor', path: '/x' }]),
      /"from" doc is missing path "\/constructor"/,
    );
  });

  it('treats own keys named constructor as data', () => {
    expect(applyJsonPatch({}, [{ op: 'add', path: '/constructor', value: { name: 'mine' } }])).toEqual({ constructor: { name: 'mine' } });
    expect(applyJsonPatch({ constructor: { a: 1 } }, [{ op: 'replace', path: '/constructor/a', value: 2 }])).toEqual({
      constructor: { a: 2 },
    });
  });
});

describe('applyMergePatch (RFC 7386)', () => {
  // RFC 7386 appendix A, every example.
  const examples: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [original, patch, result] of examples) {
    it(`${JSON.stringify(original)} + ${JSON.stringify(patch)} = ${JSON.stringify(result)}`, () => {
      expect(applyMergePatch(original, patch)).toEqual(result);
    });
  }

  it('merges nested objects and replaces arrays', () => {
    const doc = { metadata: { name: 'w', labels: { a: '1', b: '2' } }, spec: { ports: [80, 443], replicas: 1 } };
    expect(applyMergePatch(doc, { metadata: { labels: { b: null, c: '3' } }, spec: { ports: [8080] } })).toEqual({
      metadata: { name: 'w', labels: { a: '1', c: '3' } },
      spec: { ports: [8080], replicas: 1 },
    });
  });

  it('keeps nulls inside arrays and deleting a missing key is a no-op', () => {
    expect(applyMergePatch({}, { a: [null, { b: null }] })).toEqual({ a: [null, { b: null }] });
    expect(applyMergePatch({ a: 1 }, { zz: null })).toEqual({ a: 1 });
  });

  it('never mutates the document or the patch and shares nothing with them', () => {
    const doc = Object.freeze({ keep: Object.freeze({ deep: Object.freeze([1]) }), change: Object.freeze({ x: 1 }) });
    const patch = { change: { y: [2] }, added: { z: 1 } };
    const out = applyMergePatch(doc, patch) as { keep: object; change: { y: number[] }; added: { z: number } };
    expect(out).toEqual({ keep: { deep: [1] }, change: { x: 1, y: [2] }, added: { z: 1 } });
    expect(doc).toEqual({ keep: { deep: [1] }, change: { x: 1 } });
    expect(out.keep).not.toBe(doc.keep);
    out.change.y.push(3);
    out.added.z = 2;
    expect(patch).toEqual({ change: { y: [2] }, added: { z: 1 } });
  });

  it('treats __proto__ and constructor keys as plain data', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}') as unknown;
    const out = applyMergePatch({}, patch) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
    expect(out.polluted).toBeUndefined();
    // Deleting them only ever touches own data.
    const again = applyMergePatch(out, JSON.parse('{"__proto__": null, "constructor": null}')) as object;
    expect(again).toEqual({});
    expect(Object.keys(again)).toEqual([]);
  });

  it('a patch that is not a JSON value, or a top-level null or scalar, is 400 "Invalid JSON Patch" (as kube-apiserver; RFC 7386 would replace)', () => {
    for (const patch of [undefined, () => 1, Number.NaN, { a: Symbol('x') }, [1n], null, 'bar', 3, true]) {
      const err = statusErrorOf(() => applyMergePatch({}, patch));
      expect(err.code).toBe(400);
      expect(err.reason).toBe('BadRequest');
      expect(err.message).toBe('Invalid JSON Patch');
    }
  });
});

describe('createMergePatch', () => {
  const pairs: [unknown, unknown][] = [
    [{ a: 1 }, { a: 1 }],
    [{ a: 1 }, { a: 2 }],
    [{ a: 1, b: 2 }, { b: 2 }],
    [{}, { a: { b: [1, 2] } }],
    [{ a: { b: 1, c: { d: 2 } } }, { a: { b: 1, c: { d: 3, e: 4 } } }],
    [{ a: { b: 1 } }, { a: 'scalar' }],
    [{ a: 'scalar' }, { a: { b: 1 } }],
    [{ a: [1, 2] }, { a: [2, 1] }],
    [{ a: [{ x: 1 }] }, { a: [{ x: 1 }] }],
    [{ metadata: { labels: { a: '1' }, annotations: { k: 'v' } } }, { metadata: { labels: { a: '1', b: '2' } } }],
    [[1, 2], [3]],
    [{ a: 1 }, [1]],
    [[1], { a: 1 }],
  ];
  for (const [original, modified] of pairs) {
    it(`round trips ${JSON.stringify(original)} → ${JSON.stringify(modified)}`, () => {
      const patch = createMergePatch(original, modified);
      expect(applyMergePatch(original, patch)).toEqual(modified);
    });
  }

  it('between scalars the patch is the new value itself (which kube-apiserver would refuse as a merge patch)', () => {
    expect(createMergePatch('x', 'y')).toBe('y');
  });

  it('produces the minimal patch', () => {
    expect(createMergePatch({ a: 1, b: { c: 1, d: 2 }, e: [1] }, { a: 1, b: { c: 1, d: 3 }, e: [1], f: true })).toEqual({
      b: { d: 3 },
      f: true,
    });
    expect(createMergePatch({ a: 1, b: 2 }, { a: 1 })).toEqual({ b: null });
    expect(createMergePatch({ a: { b: 1 } }, { a: { b: 1 } })).toEqual({});
    expect(createMergePatch({ a: [1, 2] }, { a: [1, 3] })).toEqual({ a: [1, 3] });
    expect(createMergePatch({ a: 1 }, null)).toBeNull();
  });

  it('shares nothing with modified', () => {
    const modified = { a: { b: [1] } };
    const patch = createMergePatch({}, modified) as { a: { b: number[] } };
    patch.a.b.push(2);
    expect(modified).toEqual({ a: { b: [1] } });
  });

  it('cannot express a null value in an object (an RFC 7386 limit): it becomes a deletion', () => {
    const patch = createMergePatch({ a: 1 }, { a: null });
    expect(patch).toEqual({ a: null });
    expect(applyMergePatch({ a: 1 }, patch)).toEqual({});
  });
});
