import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLinearRegExp } from './linear-regexp.ts';
import { compileRE2 } from './re2.ts';

describe('linear-time regular expressions', () => {
  it('answers patterns that take a backtracking engine exponential time, as RE2 does at once', () => {
    // RegExp needs ~2^n–3^n steps for these on n a's and a mismatch at the end: minutes at 30, never at 5,000.
    const input = `${'a'.repeat(5000)}!`;
    expect(compileRE2('^(a|a?)+$').test(input)).toBe(false);
    expect(compileRE2('(a+)+$').test(input)).toBe(false);
    expect(compileRE2('^(\\w+\\s?)+$').test(input)).toBe(false);
    expect(compileRE2('(x+x+)+y').exec(`${'x'.repeat(5000)}`, 0)).toBeNull();
    expect(compileRE2('^(a|a?)+$').test('a'.repeat(5000))).toBe(true);
  });

  it('finds the leftmost-first match RegExp finds, greedy and lazy, with flags and assertions', () => {
    const patterns: Array<[string, string]> = [
      ['a+', 'u'],
      ['a+?', 'u'],
      ['(ab|a)(bc|c)?', 'u'],
      ['(a|ab)(c|bcd)?', 'u'],
      ['a*?b', 'u'],
      ['x{2,3}?y?', 'u'],
      ['b{0,2}', 'u'],
      ['^a|b$', 'u'],
      ['^a$', 'mu'],
      ['(?<![\\s\\S])a|a(?![\\s\\S])', 'u'],
      ['\\bab\\b|\\Bb', 'u'],
      ['(?i:aB)[c-d]', 'u'],
      ['ab', 'iu'],
      ['a.c', 'u'],
      ['a.c', 'su'],
      ['(?<n>[αé]+)1?', 'u'],
      ['[^a\\n]+', 'u'],
      ['(a*)*b', 'u'],
      ['(?:)', 'u'],
      ['\\p{L}{2}', 'u'],
    ];
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'x', 'y', 'A', 'B', 'é', 'α', '😀', '1', ' ', '\n'), maxLength: 8 });
    fc.assert(
      fc.property(fc.constantFrom(...patterns), text, fc.nat(8), ([source, flags], s, from) => {
        const start = Math.min(from, s.length);
        // Only code point boundaries are meaningful starting points.
        if (start > 0 && start < s.length && /[\udc00-\udfff]/.test(s[start] as string)) return;
        const re = new RegExp(source, `g${flags}`);
        re.lastIndex = start;
        const m = re.exec(s);
        const linear = compileLinearRegExp(source, { i: flags.includes('i'), m: flags.includes('m'), s: flags.includes('s') });
        expect(linear.exec(s, start)).toEqual(m ? [m.index, m.index + m[0].length] : null);
        expect(linear.test(s)).toBe(new RegExp(source, flags).test(s));
      }),
      { seed: 20_261_129, numRuns: 3000 },
    );
  });

  it("refuses nested counts over 1000 copies as Go's regexp does", () => {
    expect(() => compileRE2('(a{2}){501}')).toThrow('error parsing regexp: invalid repeat count: `{501}`');
    expect(compileRE2('^(a{2}){500}$').test('a'.repeat(1000))).toBe(true);
  });
});
