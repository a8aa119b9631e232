import { describe, expect, it } from 'vitest';
import { escapeFieldName, listType, mapType, objectType, optionalType } from './cel-type.ts';
import { CelEnvironment } from './environment.ts';

const item = objectType('tt.0items', { name: 'string', n: 'int', 'my-field': 'string' });
const spec = objectType('tt.spec', {
  replicas: 'int',
  ratio: 'double',
  items: listType(item),
  byName: mapType(item),
  opt: 'string',
  one: item,
  at: 'google.protobuf.Timestamp',
  every: 'google.protobuf.Duration',
  raw: 'bytes',
});
const root = objectType('tt', { spec });
const self = {
  spec: {
    replicas: 3,
    ratio: 1,
    items: [{ name: 'a', n: 1, 'my-field': 'z' }],
    byName: { k: { name: 'b', n: 2 } },
    one: { name: 'a', n: 1, 'my-field': 'z' },
    at: '2024-01-02T03:04:05Z',
    every: '1h30m',
    raw: 'aGVsbG8=',
    undeclared: 1,
  },
};

function run(env: CelEnvironment, expression: string, activation: Record<string, unknown>) {
  const compiled = env.compile(expression);
  if (compiled.kind === 'error') throw compiled.error;
  const result = compiled.program.evaluate(activation);
  if (result.kind === 'error') throw result.error;
  return result.value;
}

describe('object, list and map types', () => {
  const env = new CelEnvironment({ variables: { self: root, oldSelf: root } });

  it('types fields through lists and maps of objects', () => {
    for (const e of [
      'self.spec.items[0].name == "a"',
      'self.spec.items.all(i, i.n > 0)',
      'self.spec.byName["k"].n == 2',
      'self.spec.byName.all(k, self.spec.byName[k].n == 2)',
      'self.spec.ratio == 1.0',
      'self.spec.one.my__dash__field == "z"',
      '!has(self.spec.opt) && self.spec.?opt.orValue("d") == "d"',
    ]) {
      expect(run(env, e, { self }), e).toBe(true);
    }
    const undefinedField = env.compile('self.spec.items[0].nosuch == 1');
    expect(undefinedField.kind === 'error' && undefinedField.error.issues[0]?.message).toBe("undefined field 'nosuch'");
    const undeclared = env.compile('self.spec.undeclared == 1');
    expect(undeclared.kind).toBe('error');
    const mixed = env.compile('self.spec.replicas + self.spec.ratio');
    expect(mixed.kind === 'error' && mixed.error.issues[0]?.message).toBe(
      "found no matching overload for '_+_' applied to '(int, double)'",
    );
  });

  it('has() and optional selection of an undeclared field fail to compile, as in cel-go', () => {
    for (const [e, column] of [
      ['has(self.spec.nope)', 13],
      ['has(self.spec.one.nope)', 17],
      ['self.?spec.?nope.hasValue()', 10],
    ] as const) {
      const result = env.compile(e);
      expect(result.kind === 'error' && result.error.issues[0], e).toEqual({ message: "undefined field 'nope'", line: 1, column });
    }
    expect(env.compile('has(self.spec.one.n) && self.?spec.?opt.hasValue()').kind).toBe('program');
  });

  it('compares objects field by field, in lists too', () => {
    const old = structuredClone(self);
    expect(
      run(env, 'self == oldSelf && self.spec.one == self.spec.items[0] && self.spec.one in self.spec.items', { self, oldSelf: old }),
    ).toBe(true);
    old.spec.one.n = 5;
    expect(run(env, 'self.spec.one != oldSelf.spec.one && self != oldSelf', { self, oldSelf: old })).toBe(true);
  });

  it('reads date-time, duration and byte strings as timestamp, duration and bytes', () => {
    expect(
      run(env, 'self.spec.at < timestamp("2025-01-01T00:00:00Z") && self.spec.every == duration("90m") && self.spec.raw == b"hello"', {
        self,
      }),
    ).toBe(true);
  });

  it('an optional variable is optional.none() when absent', () => {
    const optional = new CelEnvironment({ variables: { self: root, oldSelf: optionalType(root) } });
    const e = 'oldSelf.hasValue() ? oldSelf.value().spec.replicas <= self.spec.replicas : true';
    expect(run(optional, 'oldSelf.hasValue()', { self })).toBe(false);
    expect(run(optional, e, { self, oldSelf: { spec: { replicas: 4 } } })).toBe(false);
  });

  it('knows which variables an expression names', () => {
    const program = env.compile('self.spec.replicas >= oldSelf.spec.replicas');
    expect(program.kind === 'program' && program.program.references('oldSelf')).toBe(true);
    const plain = env.compile('self.spec.replicas >= 1');
    expect(plain.kind === 'program' && plain.program.references('oldSelf')).toBe(false);
  });
});

describe('escapeFieldName (kube cel.Escape)', () => {
  it('escapes what CEL cannot spell and refuses what it cannot escape', () => {
    expect(escapeFieldName('namespace')).toBe('__namespace__');
    expect(escapeFieldName('a-b.c/d')).toBe('a__dash__b__dot__c__slash__d');
    expect(escapeFieldName('a__b')).toBe('a__underscores__b');
    expect(escapeFieldName('1a')).toBeUndefined();
    expect(escapeFieldName('a b')).toBeUndefined();
  });
});
