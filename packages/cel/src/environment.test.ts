import { describe, expect, it } from 'vitest';
import { objectType } from './cel-type.ts';
import { CelEnvironment } from './environment.ts';
import { CelCompileError } from './errors.ts';
import type { EvaluationResult } from './program.ts';

function compile(env: CelEnvironment, expression: string) {
  const result = env.compile(expression);
  if (result.kind === 'error') throw result.error;
  return result.program;
}

function resultValue(result: EvaluationResult): unknown {
  if (result.kind === 'error') throw result.error;
  return result.value;
}

describe('CelEnvironment.compile', () => {
  const env = new CelEnvironment({ variables: { self: 'dyn', oldSelf: 'dyn' } });

  it('reports an undeclared variable as cel-go does, with the position marked', () => {
    const result = env.compile('self.a == other');
    expect(result.kind).toBe('error');
    if (result.kind !== 'error') return;
    expect(result.error).toBeInstanceOf(CelCompileError);
    expect(result.error.message).toBe(
      "ERROR: <input>:1:11: undeclared reference to 'other' (in container '')\n | self.a == other\n | ..........^",
    );
    expect(result.error.issues).toEqual([{ message: "undeclared reference to 'other' (in container '')", line: 1, column: 10 }]);
  });

  it('reports syntax errors and type errors', () => {
    const syntax = env.compile('self.a ==');
    expect(syntax.kind === 'error' && syntax.error.message).toMatch(/^ERROR: <input>:1:\d+: /);
    const types = env.compile('1 + "a"');
    expect(types.kind === 'error' && types.error.issues[0]?.message).toBe(
      "found no matching overload for '_+_' applied to '(int, string)'",
    );
  });

  it('marks the dot of a field selection and the parenthesis of a call, as cel-go does', () => {
    const typed = new CelEnvironment({ variables: { spec: 'map<string, int>' } });
    const select = typed.compile('spec.a.b');
    expect(select.kind === 'error' && select.error.issues[0]?.column).toBe(6);
    const call = env.compile('isQuantity([1])');
    expect(call.kind === 'error' && call.error.issues[0]?.column).toBe(10);
    const member = env.compile("'a'.startsWith(1)");
    expect(member.kind === 'error' && member.error.issues[0]?.column).toBe(14);
  });

  it('gives the checked output type', () => {
    expect(compile(env, 'self.replicas > 1').outputType).toBe('bool');
    expect(compile(env, "'a' + 'b'").outputType).toBe('string');
  });

  it('binds self and oldSelf, JSON integers as 64-bit ints', () => {
    const program = compile(env, 'self.replicas >= oldSelf.replicas');
    expect(resultValue(program.evaluate({ self: { replicas: 3 }, oldSelf: { replicas: 2 } }))).toBe(true);
    expect(resultValue(program.evaluate({ self: { replicas: 1 }, oldSelf: { replicas: 2 } }))).toBe(false);
    expect(resultValue(compile(env, 'self.replicas + 1').evaluate({ self: { replicas: 41 } }))).toBe(42n);
    expect(resultValue(compile(env, 'self.ratio * 2.0').evaluate({ self: { ratio: 0.25 } }))).toBe(0.5);
  });

  it('has(), optionals and macros work on dyn objects', () => {
    expect(resultValue(compile(env, 'has(self.spec) && !has(self.status)').evaluate({ self: { spec: {} } }))).toBe(true);
    expect(resultValue(compile(env, 'self.?spec.?replicas.orValue(1)').evaluate({ self: {} }))).toBe(1n);
    expect(resultValue(compile(env, 'self.items.all(i, i.name.startsWith("a"))').evaluate({ self: { items: [{ name: 'ab' }] } }))).toBe(
      true,
    );
    expect(resultValue(compile(env, 'self.items.map(i, i.n * 2)').evaluate({ self: { items: [{ n: 1 }, { n: 2 }] } }))).toEqual([2n, 4n]);
  });

  it('a declared variable left unbound (oldSelf on create) is an evaluation error in cel-go words', () => {
    const result = compile(env, 'oldSelf == self').evaluate({ self: 1 });
    expect(result.kind === 'error' && result.error.message).toBe('no such attribute(s): oldSelf');
  });

  it('a runtime overload mismatch and a list index out of range are errors in cel-go words', () => {
    const mismatch = compile(env, 'self.a + 1').evaluate({ self: { a: 'x' } });
    expect(mismatch.kind === 'error' && mismatch.error.message).toBe('no such overload');
    const index = compile(env, 'self.l[5]').evaluate({ self: { l: [1] } });
    expect(index.kind === 'error' && index.error.message).toBe('index out of bounds: 5');
  });

  it('a missing field is an evaluation error in cel-go words', () => {
    const result = compile(env, 'self.missing == 1').evaluate({ self: {} });
    expect(result.kind === 'error' && result.error.message).toBe('no such key: missing');
    expect(result.kind === 'error' && result.error.reason).toBe('EvaluationError');
  });
});

describe('64-bit integers', () => {
  const env = new CelEnvironment({ variables: { self: 'dyn' } });
  const run = (expression: string, self?: unknown) => compile(env, expression).evaluate(self === undefined ? {} : { self });

  it('int arithmetic past int64 is an error, not a wrapped or rounded number', () => {
    for (const e of ['9223372036854775807 + 1', '-9223372036854775808 - 1', '9223372036854775807 * 2', 'self * 2', '-self * 2 - 1']) {
      const result = run(e, 2 ** 62);
      expect(result.kind === 'error' && result.error.message, e).toBe('integer overflow');
    }
  });

  it('integers beyond 2^53 stay exact', () => {
    expect(resultValue(run('9007199254740993 + 2'))).toBe(9007199254740995n);
    expect(resultValue(run('int("9223372036854775807")'))).toBe(9223372036854775807n);
  });

  it('uint is its own type, and overflows too', () => {
    const result = run('18446744073709551615u + 1u');
    expect(result.kind === 'error' && result.error.message).toBe('unsigned integer overflow');
    expect(env.compile('1 + 1u').kind).toBe('error');
  });

  it('division by zero is an error', () => {
    const result = run('1 / 0');
    expect(result.kind === 'error' && result.error.message).toBe('division by zero');
  });
});

describe('declared variable types', () => {
  it('type-checks against declared scalar and list types', () => {
    const env = new CelEnvironment({ variables: { name: 'string', ports: 'list<int>' } });
    expect(env.compile('name.startsWith("x") && ports.all(p, p > 0)').kind).toBe('program');
    const bad = env.compile('name + 1');
    expect(bad.kind === 'error' && bad.error.issues[0]?.message).toBe("found no matching overload for '_+_' applied to '(string, int)'");
    const program = compile(env, 'ports.sum()');
    expect(resultValue(program.evaluate({ name: 'x', ports: [80, 443] }))).toBe(523n);
  });

  it('an object type (as a schema will give) checks fields at compile time', () => {
    const spec = objectType('example.v1.Widget.spec', { replicas: 'int', ratio: 'double', tags: 'list<string>' });
    const widget = objectType('example.v1.Widget', { spec });
    const env = new CelEnvironment({ variables: { self: widget } });
    const unknown = env.compile('self.spec.replica > 1');
    expect(unknown.kind === 'error' && unknown.error.issues[0]?.message).toBe("undefined field 'replica'");
    const mistyped = env.compile('self.spec.replicas == "3"');
    expect(mistyped.kind).toBe('error');
    // a double field takes a JSON number that happens to be whole
    const program = compile(env, 'self.spec.replicas < 5 && self.spec.ratio > 0.5 && self.spec.tags.size() == 1');
    expect(resultValue(program.evaluate({ self: { spec: { replicas: 3, ratio: 1, tags: ['a'] } } }))).toBe(true);
  });
});
