import { describe, expect, it } from 'vitest';
import { listType, objectType } from './cel-type.ts';
import { CelEnvironment } from './environment.ts';

// kube's UnstructuredToVal: a null in a nullable field is CEL's null (a non-nullable one is an error when read);
// cel-go's checker lets messages, timestamps and durations be compared with null, not strings or lists.

const inner = objectType('nf.inner', { a: 'string' });
const selfType = objectType('nf', { s: 'string', strict: 'string', o: inner, t: 'google.protobuf.Timestamp', l: listType('string') }, [
  's',
  'o',
  't',
  'l',
]);
const env = new CelEnvironment({ variables: { self: selfType } });
const nulls = { s: null, strict: null, o: null, t: null, l: null };

function run(expression: string, self: unknown = nulls): unknown {
  const compiled = env.compile(expression);
  if (compiled.kind === 'error') throw compiled.error;
  const result = compiled.program.evaluate({ self });
  return result.kind === 'value' ? result.value : `error: ${result.error.message}`;
}

function compileError(expression: string): string | undefined {
  const compiled = env.compile(expression);
  return compiled.kind === 'error' ? compiled.error.message.split('\n')[0] : undefined;
}

describe('null in a nullable field', () => {
  it('reads as null and is present', () => {
    expect(run('has(self.s) && has(self.o) && has(self.l)')).toBe(true);
    expect(run('self.o == null && null == self.o && self.t == null')).toBe(true);
    expect(run('self.o != null')).toBe(false);
    expect(run('self.?s.hasValue()')).toBe(true);
  });

  it('equals only null: comparing it with a string is false, not an error', () => {
    expect(run("self.s == 'a'")).toBe(false);
    expect(run("self.s != 'a'")).toBe(true);
    expect(run("self.s in ['a']")).toBe(false);
    expect(run("self.s == 'a'", { s: 'a' })).toBe(true);
  });

  it('has no overload in operators and functions (cel-go: no such overload)', () => {
    expect(run('self.s.size() > 0')).toBe('error: no such overload');
    expect(run('size(self.s) > 0')).toBe('error: no such overload');
    expect(run("self.s + 'a' == 'a'")).toBe('error: no such overload');
    expect(run("self.s < 'a'")).toBe('error: no such overload');
    expect(run("self.s.startsWith('a')")).toBe('error: no such overload');
    expect(run("'a' in self.l")).toBe('error: no such overload');
  });

  it('a non-nullable field holding null is an error when read', () => {
    expect(run("self.strict == 'a'")).toMatch(/^error: /);
  });

  it('compiles `== null` where cel-go does: objects, timestamps, durations; not strings or lists', () => {
    expect(compileError('self.o == null')).toBeUndefined();
    expect(compileError("timestamp('2024-01-01T00:00:00Z') != null")).toBeUndefined();
    expect(compileError("duration('1s') == null")).toBeUndefined();
    expect(compileError('self.s == null')).toBe("ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(string, null)'");
    expect(compileError('self.l == null')).toBe(
      "ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(list(string), null)'",
    );
  });

  it('a present object compares unequal to null', () => {
    expect(run('self.o == null', { o: { a: 'x' } })).toBe(false);
    expect(run('self.o.a == "x"', { o: { a: 'x' } })).toBe(true);
  });
});
