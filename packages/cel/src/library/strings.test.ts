import { describe, expect, it } from 'vitest';
import { compileError, evalError, value } from '../test-support/evaluate.ts';

// cel-go ext strings examples (the functions kube's environments enable)
describe('strings (cel-go ext.Strings as kube enables it)', () => {
  it('charAt counts code points; the index after the last gives an empty string', () => {
    expect(value("'hello'.charAt(4)")).toBe('o');
    expect(value("'hello'.charAt(5)")).toBe('');
    expect(value("'😀ab'.charAt(1)")).toBe('a');
    expect(evalError("'hello'.charAt(6)")).toBe('index out of range: 6');
    expect(evalError("'hello'.charAt(-1)")).toBe('index out of range: -1');
  });

  it('replace, all or the first n', () => {
    expect(value("'hello hello'.replace('he', 'we')")).toBe('wello wello');
    expect(value("'hello hello'.replace('he', 'we', -1)")).toBe('wello wello');
    expect(value("'hello hello'.replace('he', 'we', 1)")).toBe('wello hello');
    expect(value("'hello hello'.replace('he', 'we', 0)")).toBe('hello hello');
    expect(value("'ab'.replace('', '-')")).toBe('-a-b-');
  });

  it('reverse by code point', () => {
    expect(value("'gums'.reverse()")).toBe('smug');
    expect(value("'John Smith'.reverse()")).toBe('htimS nhoJ');
    expect(value("'a😀b'.reverse()")).toBe('b😀a');
  });

  it('indexOf, lastIndexOf and substring count code points, with cel-go’s errors', () => {
    expect(value("'😀😀abc'.indexOf('abc')")).toBe(2n);
    expect(value("'😀😀abc'.lastIndexOf('😀')")).toBe(1n);
    expect(value("'😀😀abc'.substring(1, 3)")).toBe('😀a');
    expect(value("'abc'.indexOf('')")).toBe(0n);
    expect(value("'abc'.lastIndexOf('')")).toBe(3n);
    expect(value("'abc'.indexOf('c', 5)")).toBe(-1n);
    expect(evalError("'abc'.indexOf('c', -1)")).toBe('index out of range: -1');
    expect(evalError("''.lastIndexOf('a')")).toBe('index out of range: -1');
    expect(evalError("'tacocat'.substring(40)")).toBe('index out of range: 40');
    expect(evalError("'tacocat'.substring(-1)")).toBe('index out of range: -1');
    expect(evalError("'tacocat'.substring(1, 40)")).toBe('index out of range: 40');
    expect(evalError("'tacocat'.substring(3, 1)")).toBe('invalid substring range. start: 3, end: 1');
    expect(value("['a😀', 'b'].map(s, s.substring(1)).join(',')")).toBe('😀,');
  });

  it('lowerAscii and upperAscii leave non-ASCII letters alone', () => {
    expect(value("'ÀbC'.lowerAscii()")).toBe('Àbc');
    expect(value("'àBc'.upperAscii()")).toBe('àBC');
  });

  it('type errors name the function as written', () => {
    expect(compileError("'abc'.indexOf(1)")).toContain("found no matching overload for 'indexOf' applied to 'string.(int)'");
  });

  it('the built-in string functions kube rules use', () => {
    expect(value("'hello mellow'.indexOf('ello')")).toBe(1n);
    expect(value("'hello mellow'.indexOf('jello')")).toBe(-1n);
    expect(value("'hello mellow'.indexOf('ello', 6)")).toBe(7n);
    expect(value("'hello mellow'.lastIndexOf('ello')")).toBe(7n);
    expect(value("'TacoCat'.lowerAscii()")).toBe('tacocat');
    expect(value("'TacoCat'.upperAscii()")).toBe('TACOCAT');
    expect(value("'hello hello'.split(' ')")).toEqual(['hello', 'hello']);
    expect(value("'hello hello hello'.split(' ', 2)")).toEqual(['hello', 'hello hello']);
    expect(value("'tacocat'.substring(4)")).toBe('cat');
    expect(value("'tacocat'.substring(0, 4)")).toBe('taco');
    expect(value("'  \\ttrim\\n    '.trim()")).toBe('trim');
    expect(value("['hello', 'mellow'].join()")).toBe('hellomellow');
    expect(value("['hello', 'mellow'].join(' ')")).toBe('hello mellow');
  });
});
