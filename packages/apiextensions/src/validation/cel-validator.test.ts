import { fieldErrorMessage } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps, ValidationRule } from '../schema/json-schema-props.ts';
import { newStructural } from '../schema/new-structural.ts';
import { CelValidator } from './cel-validator.ts';

// Cases after kube's schema/cel/validation_test.go: a rule on a node, a value, the messages kube gives.

function validator(schema: JSONSchemaProps, perCallLimit?: number): CelValidator {
  const v = CelValidator.compile(newStructural(schema), false, perCallLimit);
  if (!v) throw new Error('no rules');
  return v;
}

function messages(schema: JSONSchemaProps, obj: unknown, opts: { old?: unknown; budget?: number } = {}, perCallLimit?: number): string[] {
  return validator(schema, perCallLimit).validate(obj, opts).errors.map(fieldErrorMessage);
}

const rules = (...r: (string | ValidationRule)[]): ValidationRule[] => r.map((x) => (typeof x === 'string' ? { rule: x } : x));

function object(properties: Record<string, JSONSchemaProps>, validations: (string | ValidationRule)[] = [], extra: JSONSchemaProps = {}) {
  return { type: 'object', properties, 'x-kubernetes-validations': rules(...validations), ...extra } satisfies JSONSchemaProps;
}

describe('typed self', () => {
  it('integers are int and numbers double, as the schema says', () => {
    const s = object({ i: { type: 'integer' }, d: { type: 'number' } }, ['self.i + 1 == 2', 'self.d * 2.0 == 2.0', 'type(self.i) == int']);
    expect(messages(s, { i: 1, d: 1 })).toEqual([]);
    expect(messages(s, { i: 2, d: 1.5 })).toEqual([
      '<nil>: Invalid value: "object": failed rule: self.i + 1 == 2',
      '<nil>: Invalid value: "object": failed rule: self.d * 2.0 == 2.0',
    ]);
  });

  it('strings, lists, maps and nested objects', () => {
    const s = object(
      {
        name: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        nested: object({ deep: object({ n: { type: 'integer' } }) }),
      },
      [
        "self.name.startsWith('a')",
        "self.tags.all(t, t.size() < 3) && 'x' in self.tags",
        "self.labels['app'] == 'web'",
        'self.nested.deep.n > 0',
      ],
    );
    expect(messages(s, { name: 'ab', tags: ['x', 'y'], labels: { app: 'web' }, nested: { deep: { n: 1 } } })).toEqual([]);
    expect(messages(s, { name: 'b', tags: ['long'], labels: { app: 'db' }, nested: { deep: { n: 0 } } })).toHaveLength(4);
  });

  it('a null in a nullable field reads as null (kube: self.x == null holds, has(self.x) is true)', () => {
    const s = object({ o: object({ a: { type: 'string' } }, [], { nullable: true }), name: { type: 'string', nullable: true } }, [
      'has(self.o) && self.o == null',
      "has(self.name) && self.name != 'x'",
      { rule: 'self.name.size() > 0', message: 'nonempty' },
    ]);
    expect(messages(s, { o: null, name: null })).toEqual([
      '<nil>: Invalid value: "object": \'no such overload\': call arguments did not match a supported operator, function or macro signature for rule: nonempty',
    ]);
    expect(messages(s, { o: { a: 'b' }, name: 'n' })).toEqual([
      '<nil>: Invalid value: "object": failed rule: has(self.o) && self.o == null',
    ]);
  });

  it('a rule on a scalar reports the node kube names, with the value kind', () => {
    const s = object({
      items: { type: 'array', items: { type: 'integer', 'x-kubernetes-validations': rules('self < 10') } },
      m: { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-validations': rules("self != 'bad'") } },
    });
    expect(messages(s, { items: [1, 20], m: { ok: 'x', key: 'bad' } })).toEqual([
      'items[1]: Invalid value: "integer": failed rule: self < 10',
      'm[key]: Invalid value: "string": failed rule: self != \'bad\'',
    ]);
  });

  it('int-or-string is dyn, date-time a timestamp, an embedded resource shows apiVersion, kind and metadata.name', () => {
    const s = object(
      {
        ios: { 'x-kubernetes-int-or-string': true },
        at: { type: 'string', format: 'date-time' },
        res: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
      [
        "type(self.ios) == int ? self.ios < 5 : self.ios.endsWith('%')",
        "self.at < timestamp('2030-01-01T00:00:00Z')",
        "self.res.kind == 'Pod' && self.res.metadata.name.startsWith('p')",
      ],
    );
    const res = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod', labels: { a: 'b' } }, spec: {} };
    expect(messages(s, { ios: 3, at: '2026-01-01T00:00:00Z', res })).toEqual([]);
    expect(messages(s, { ios: '50%', at: '2026-01-01T00:00:00Z', res })).toEqual([]);
    expect(messages(s, { ios: 7, at: '2031-01-01T00:00:00Z', res: { ...res, kind: 'Job' } })).toHaveLength(3);
    // undeclared fields of the embedded object are not visible
    const hidden = validator(
      object({ res: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }, [
        'self.res.spec == self.res.spec',
      ]),
    );
    const [only] = hidden.validate({ res }).errors.map(fieldErrorMessage);
    expect(only).toMatch(
      /^<nil>: Invalid value: "object": rule compile error: compilation failed: ERROR: <input>:1:9: undefined field 'spec'/,
    );
  });

  it('evaluation errors name the rule; an int-or-string used as the wrong one is kube’s overload message', () => {
    const s = object({ a: { type: 'integer' }, ios: { 'x-kubernetes-int-or-string': true } }, ['self.a == 1', 'self.ios + 1 > 2']);
    expect(messages(s, { ios: '50%' })).toEqual([
      '<nil>: Invalid value: "object": no such key: a evaluating rule: self.a == 1',
      '<nil>: Invalid value: "object": \'no such overload\': call arguments did not match a supported operator, function or macro signature for rule: self.ios + 1 > 2',
    ]);
  });
});

describe('message, messageExpression, reason and fieldPath', () => {
  const s = (rule: ValidationRule) => object({ n: { type: 'integer' }, sub: object({ x: { type: 'string' } }) }, [rule]);

  it('message replaces "failed rule"', () => {
    expect(messages(s({ rule: 'self.n > 0', message: ' n must be positive ' }), { n: 0 })).toEqual([
      '<nil>: Invalid value: "object": n must be positive',
    ]);
  });

  it('messageExpression gives the message; kube falls back to message when it errors or gives an empty string', () => {
    expect(messages(s({ rule: 'self.n > 0', messageExpression: "'n is ' + string(self.n)" }), { n: -1 })).toEqual([
      '<nil>: Invalid value: "object": n is -1',
    ]);
    expect(messages(s({ rule: 'self.n > 0', message: 'fallback', messageExpression: "self.sub.x + ''" }), { n: -1 })).toEqual([
      '<nil>: Invalid value: "object": fallback',
    ]);
    expect(messages(s({ rule: 'self.n > 0', messageExpression: "' '" }), { n: -1 })).toEqual([
      '<nil>: Invalid value: "object": failed rule: self.n > 0',
    ]);
  });

  it('reason picks the error type; fieldPath is appended to the node path', () => {
    expect(messages(s({ rule: 'self.n > 0', reason: 'FieldValueForbidden', message: 'no' }), { n: 0 })).toEqual(['<nil>: Forbidden: no']);
    expect(messages(s({ rule: 'self.n > 0', reason: 'FieldValueRequired', message: 'need' }), { n: 0 })).toEqual([
      '<nil>: Required value: need',
    ]);
    expect(messages(s({ rule: 'self.n > 0', reason: 'FieldValueDuplicate' }), { n: 0 })).toEqual(['<nil>: Duplicate value: "object"']);
    expect(messages(s({ rule: 'self.n > 0', fieldPath: '.sub.x', message: 'bad' }), { n: 0, sub: { x: 'a' } })).toEqual([
      'sub.x: Invalid value: "object": bad',
    ]);
    const nested = object({ spec: s({ rule: 'self.n > 0', fieldPath: '.n' }) });
    expect(messages(nested, { spec: { n: 0 } })).toEqual(['spec.n: Invalid value: "object": failed rule: self.n > 0']);
  });
});

describe('transition rules', () => {
  const immutable = object({ spec: object({ name: { type: 'string' } }, [{ rule: 'self.name == oldSelf.name', message: 'immutable' }]) });

  it('run only on update', () => {
    expect(messages(immutable, { spec: { name: 'a' } })).toEqual([]);
    expect(messages(immutable, { spec: { name: 'b' } }, { old: { spec: { name: 'a' } } })).toEqual([
      'spec: Invalid value: "object": immutable',
    ]);
    expect(messages(immutable, { spec: { name: 'a' } }, { old: { spec: { name: 'a' } } })).toEqual([]);
    // no old value where the rule sits: not run
    expect(messages(immutable, { spec: { name: 'b' } }, { old: {} })).toEqual([]);
  });

  it('correlate map-list items by their keys, not atomic lists', () => {
    const item = object({ k: { type: 'string' }, v: { type: 'integer' } }, ['self.v >= oldSelf.v'], { required: ['k'] });
    const s = object({
      byKey: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: item },
      atomic: { type: 'array', items: item },
    });
    const old = {
      byKey: [
        { k: 'a', v: 5 },
        { k: 'b', v: 1 },
      ],
      atomic: [{ k: 'a', v: 5 }],
    };
    expect(
      messages(
        s,
        {
          byKey: [
            { k: 'b', v: 2 },
            { k: 'a', v: 4 },
          ],
          atomic: [{ k: 'a', v: 1 }],
        },
        { old },
      ),
    ).toEqual(['byKey[1]: Invalid value: "object": failed rule: self.v >= oldSelf.v']);
  });

  it('a set or map list equals a reordering of itself, as kube compares them; an atomic list does not', () => {
    const entry = object({ k: { type: 'string' }, v: { type: 'integer' } }, [], { required: ['k'] });
    const s = object(
      {
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        byKey: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: entry },
        atomic: { type: 'array', items: { type: 'string' } },
      },
      [
        { rule: 'self.tags == oldSelf.tags', message: 'tags are immutable' },
        { rule: 'self.byKey == oldSelf.byKey', message: 'byKey is immutable' },
        { rule: 'self.atomic == oldSelf.atomic', message: 'atomic is immutable' },
      ],
    );
    const old = {
      tags: ['a', 'b'],
      byKey: [
        { k: 'x', v: 1 },
        { k: 'y', v: 2 },
      ],
      atomic: ['a', 'b'],
    };
    const reordered = {
      tags: ['b', 'a'],
      byKey: [
        { k: 'y', v: 2 },
        { k: 'x', v: 1 },
      ],
      atomic: ['b', 'a'],
    };
    expect(messages(s, reordered, { old })).toEqual(['<nil>: Invalid value: "object": atomic is immutable']);
    expect(
      messages(
        s,
        {
          ...old,
          tags: ['a', 'c'],
          byKey: [
            { k: 'y', v: 3 },
            { k: 'x', v: 1 },
          ],
        },
        { old },
      ),
    ).toEqual(['<nil>: Invalid value: "object": tags are immutable', '<nil>: Invalid value: "object": byKey is immutable']);
  });

  it('optionalOldSelf runs on create with oldSelf as an optional', () => {
    const s = object({ n: { type: 'integer' } }, [
      { rule: 'oldSelf.hasValue() ? self.n >= oldSelf.value().n : self.n == 0', optionalOldSelf: true, message: 'grow from 0' },
    ]);
    expect(messages(s, { n: 1 })).toEqual(['<nil>: Invalid value: "object": grow from 0']);
    expect(messages(s, { n: 0 })).toEqual([]);
    expect(messages(s, { n: 2 }, { old: { n: 1 } })).toEqual([]);
    expect(messages(s, { n: 0 }, { old: { n: 1 } })).toEqual(['<nil>: Invalid value: "object": grow from 0']);
  });

  it('ratchets: an unchanged value that failed a rule keeps being accepted on update', () => {
    const s = object({ a: object({ n: { type: 'integer' } }, ['self.n < 5']), b: { type: 'integer' } });
    const old = { a: { n: 9 }, b: 1 };
    expect(messages(s, { a: { n: 9 }, b: 2 }, { old })).toEqual([]);
    expect(messages(s, { a: { n: 8 }, b: 1 }, { old })).toEqual(['a: Invalid value: "object": failed rule: self.n < 5']);
  });
});

describe('ratcheting of a map list', () => {
  it('a reordered map list is unchanged (kube: CachedDeepEqual matches its items by key), so its failing rule ratchets', () => {
    const entry = object({ k: { type: 'string' }, v: { type: 'integer' } }, [], { required: ['k'] });
    const s = object({
      spec: object({ byKey: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: entry } }, [
        'self.byKey.size() < 2',
      ]),
    });
    const old = {
      spec: {
        byKey: [
          { k: 'x', v: 1 },
          { k: 'y', v: 2 },
        ],
      },
    };
    expect(
      messages(
        s,
        {
          spec: {
            byKey: [
              { k: 'y', v: 2 },
              { k: 'x', v: 1 },
            ],
          },
        },
        { old },
      ),
    ).toEqual([]);
    expect(
      messages(
        s,
        {
          spec: {
            byKey: [
              { k: 'y', v: 3 },
              { k: 'x', v: 1 },
            ],
          },
        },
        { old },
      ),
    ).toEqual(['spec: Invalid value: "object": failed rule: self.byKey.size() < 2']);
  });
});

describe('allOf', () => {
  it('runs the rules of allOf entries on the node and on its properties', () => {
    const s = object({ n: { type: 'integer' }, m: { type: 'integer' } }, ['self.n >= 0'], {
      allOf: [
        { 'x-kubernetes-validations': rules('self.n < 10') },
        { properties: { m: { 'x-kubernetes-validations': rules('self % 2 == 0') } } },
      ],
    });
    expect(messages(s, { n: 20, m: 3 })).toEqual([
      '<nil>: Invalid value: "object": failed rule: self.n < 10',
      'm: Invalid value: "integer": failed rule: self % 2 == 0',
    ]);
    expect(messages(s, { n: 2, m: 4 })).toEqual([]);
  });
});

describe('cost', () => {
  const s = object({ l: { type: 'array', items: { type: 'integer' } } }, ['self.l.all(x, self.l.all(y, x + y >= 0))', 'self.l.size() > 0']);
  const big = { l: Array.from({ length: 300 }, (_, i) => i) };

  it('a rule past the per-call limit stops all rules', () => {
    expect(messages(s, big, {}, 10_000)).toEqual([
      '<nil>: Invalid value: "object": \'operation cancelled: actual cost limit exceeded\': no further validation rules will be run due to call cost exceeds limit for rule: self.l.all(x, self.l.all(y, x + y >= 0))',
    ]);
  });

  it('the runtime budget is for all rules of the object', () => {
    expect(messages(s, big, { budget: 100_000 })).toEqual([
      '<nil>: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
    ]);
    const r = validator(s).validate({ l: [1, 2] });
    expect(r.errors).toEqual([]);
    expect(r.remainingBudget).toBeLessThan(10_000_000);
  });
});
