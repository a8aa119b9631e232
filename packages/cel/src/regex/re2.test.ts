import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRE2 } from './re2.ts';

const matches = (pattern: string, s: string) => compileRE2(pattern).test(s);
const findAll = (pattern: string, s: string, n = -1) => compileRE2(pattern).findAll(s, n);
const parseError = (pattern: string) => {
  try {
    compileRE2(pattern);
    return '';
  } catch (e) {
    return (e as Error).message;
  }
};

describe('RE2 patterns as Go compiles them', () => {
  it("refuses what Go's regexp refuses, with Go's error text", () => {
    expect(parseError('+')).toBe('error parsing regexp: missing argument to repetition operator: `+`');
    expect(parseError('a|*')).toBe('error parsing regexp: missing argument to repetition operator: `*`');
    expect(parseError('a**')).toBe('error parsing regexp: invalid nested repetition operator: `**`');
    expect(parseError('a++')).toBe('error parsing regexp: invalid nested repetition operator: `++`');
    expect(parseError('a{2}{3}')).toBe('error parsing regexp: invalid nested repetition operator: `{2}{3}`');
    expect(parseError('(a')).toBe('error parsing regexp: missing closing ): `(a`');
    expect(parseError('a)b')).toBe('error parsing regexp: unexpected ): `a)b`');
    expect(parseError('x[a-')).toBe('error parsing regexp: missing closing ]: `[a-`');
    expect(parseError('[z-a]')).toBe('error parsing regexp: invalid character class range: `z-a`');
    expect(parseError('[[:foo:]]')).toBe('error parsing regexp: invalid character class range: `[:foo:]`');
    expect(parseError('(a)\\1')).toBe('error parsing regexp: invalid escape sequence: `\\1`');
    expect(parseError('\\Z')).toBe('error parsing regexp: invalid escape sequence: `\\Z`');
    expect(parseError('\\x{110000}')).toBe('error parsing regexp: invalid escape sequence: `\\x{110000`');
    expect(parseError('a(?=b)')).toBe('error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    expect(parseError('a(?!b)')).toBe('error parsing regexp: invalid or unsupported Perl syntax: `(?!`');
    expect(parseError('a(?<=b)')).toBe('error parsing regexp: invalid named capture: `(?<=b)`');
    expect(parseError('(?P<n>a)(?P<n>b)')).toBe('error parsing regexp: duplicate capture group name: `n`');
    expect(parseError('a{1001}')).toBe('error parsing regexp: invalid repeat count: `{1001}`');
    expect(parseError('a{3,2}')).toBe('error parsing regexp: invalid repeat count: `{3,2}`');
    expect(parseError('\\p{Klingon}')).toBe('error parsing regexp: invalid character class range: `\\p{Klingon}`');
    expect(parseError('a\\')).toBe('error parsing regexp: trailing backslash at end of expression: ``');
  });

  it('refuses nested counts over 1000 copies, programs over the size limit and deep nesting, as Go does', () => {
    expect(parseError('(a{2}){501}')).toBe('error parsing regexp: invalid repeat count: `{501}`');
    expect(parseError('((a{10}){10}){11}')).toBe('error parsing regexp: invalid repeat count: `{11}`');
    expect(matches('^(a{2}){500}$', 'a'.repeat(1000))).toBe(true);
    const large = `(?:${'a{1000}'.repeat(4000)})`;
    expect(parseError(large)).toBe(`error parsing regexp: expression too large: \`${large}\``);
    const deep = `${'('.repeat(1001)}a${')'.repeat(1001)}`;
    expect(parseError(deep)).toBe(`error parsing regexp: expression nests too deeply: \`${deep}\``);
  });

  it("reads Go's syntax where JavaScript differs", () => {
    // `.` excludes only \n; (?s) lets it match \n.
    expect(matches('^a.c$', 'a\rc')).toBe(true);
    expect(matches('^a.c$', 'a\nc')).toBe(false);
    expect(matches('(?s)^a.c$', 'a\nc')).toBe(true);
    // `$` is the end of the text without (?m), and before any \n with it.
    expect(matches('^a$', 'a\n')).toBe(false);
    expect(matches('(?m)^a$', 'b\na\nc')).toBe(true);
    // \s is ASCII and has no \v.
    expect(matches('^\\s$', '\v')).toBe(false);
    expect(matches('^\\s$', '\u00a0')).toBe(false);
    expect(matches('^\\S$', '\v')).toBe(true);
    expect(matches('^[\\S]$', '\v')).toBe(true);
    // ] first in a class is a literal; escaped punctuation and a lone brace are literals.
    expect(matches('^[]a]+$', 'a]')).toBe(true);
    expect(matches('^[^]a]$', ']')).toBe(false);
    expect(matches('^\\#\\!\\@$', '#!@')).toBe(true);
    expect(matches('^a{$', 'a{')).toBe(true);
    expect(matches('^a{,2}$', 'a{,2}')).toBe(true);
    // Flags mid-expression apply to the rest of the group only; (?U) swaps greedy and lazy.
    expect(matches('^a(?i)b$', 'aB')).toBe(true);
    expect(matches('^a(?i)b$', 'AB')).toBe(false);
    expect(matches('^(?i:a)b$', 'Ab')).toBe(true);
    expect(matches('^((?i)a)b$', 'AB')).toBe(false);
    expect(findAll('(?U)a+', 'aaa', 1)).toEqual(['a']);
    // Named groups, POSIX classes, \pL, \Q…\E, \x{…}, octal, \A and \z, a repeated assertion.
    expect(matches('^(?P<year>\\d{4})$', '2024')).toBe(true);
    expect(matches('^(?<n>x)$', 'x')).toBe(true);
    expect(matches('^[[:alpha:][:digit:]]+$', 'ab12')).toBe(true);
    expect(matches('^[[:^digit:]]+$', 'ab1')).toBe(false);
    expect(matches('^\\pL+$', 'été')).toBe(true);
    expect(matches('^\\p{Greek}+$', 'αβγ')).toBe(true);
    expect(matches('^\\Qa.b*\\E$', 'a.b*')).toBe(true);
    expect(matches('^\\x{1F600}\\x41$', '😀A')).toBe(true);
    expect(matches('^\\101$', 'A')).toBe(true);
    expect(matches('\\Aab\\z', 'ab')).toBe(true);
    expect(matches('^*a', 'a')).toBe(true);
    // \d and \w stay ASCII; case folding is Unicode's simple folding (K folds to the Kelvin sign).
    expect(matches('^\\d$', '٣')).toBe(false);
    expect(matches('^\\w+$', 'é')).toBe(false);
    expect(matches('(?i)^k$', '\u212a')).toBe(true);
  });

  it('matches unanchored, as MatchString does', () => {
    expect(matches('b+', 'abbc')).toBe(true);
    expect(matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', 'my-name')).toBe(true);
    expect(matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', '-bad')).toBe(false);
  });
});

describe("FindAllString's matches", () => {
  it('are leftmost-first, and skip an empty match right after a match', () => {
    expect(findAll('a|ab', 'ab')).toEqual(['a']);
    expect(findAll('a*', 'baaa')).toEqual(['', 'aaa']);
    expect(findAll('[0-9]*', '12 ab 3')).toEqual(['12', '', '', '', '3']);
    expect(findAll('x*', '')).toEqual(['']);
    expect(findAll('a', 'aaa', 2)).toEqual(['a', 'a']);
    expect(findAll('a', 'aaa', 0)).toEqual([]);
    expect(findAll('b', 'aaa')).toEqual([]);
  });

  it('step over whole code points outside the BMP', () => {
    expect(findAll('.', '😀a😀')).toEqual(['😀', 'a', '😀']);
    expect(findAll('', '😀a')).toEqual(['', '', '']);
    expect(findAll('[^a]', 'a😀b')).toEqual(['😀', 'b']);
    expect(findAll('\\x{1F600}+', 'x😀😀y😀')).toEqual(['😀😀', '😀']);
  });
});

describe('RE2 patterns in linear time', () => {
  it('answers patterns that make a backtracking engine take exponential time, as Go does at once', () => {
    // RegExp needs ~2^n–3^n steps for each of these on n a's and a mismatch at the end: minutes at 30, never at 5,000.
    const input = `${'a'.repeat(5000)}!`;
    expect(matches('^(a|a?)+$', input)).toBe(false);
    expect(matches('(a+)+$', input)).toBe(false);
    expect(matches('^(\\w+\\s?)+$', input)).toBe(false);
    expect(matches('^([a-z0-9]+-?)*[a-z0-9]$', `${'a'.repeat(5000)}-`)).toBe(false);
    expect(findAll('(x+x+)+y', 'x'.repeat(5000))).toEqual([]);
    expect(findAll('(a|a?)+!', input)).toEqual([input]);
    expect(matches('^(a|a?)+$', 'a'.repeat(5000))).toBe(true);
  });

  it("finds what Go's FindAllString loop finds on RegExp, for patterns both read alike", () => {
    // RE2 source and the same pattern in RegExp syntax and flags.
    const patterns: Array<[string, string, string]> = [
      ['a+', 'a+', ''],
      ['a+?', 'a+?', ''],
      ['(ab|a)(bc|c)?', '(ab|a)(bc|c)?', ''],
      ['(a|ab)(c|bcd)?', '(a|ab)(c|bcd)?', ''],
      ['a*?b', 'a*?b', ''],
      ['x{2,3}?y?', 'x{2,3}?y?', ''],
      ['b{0,2}', 'b{0,2}', ''],
      ['^a|b$', '^a|b$', ''],
      ['(?m)^a$', '^a$', 'm'],
      ['\\bab\\b|\\Bb', '\\bab\\b|\\Bb', ''],
      ['(?i:aB)[c-d]', '(?i:aB)[c-d]', ''],
      ['(?i)ab', 'ab', 'i'],
      ['a.c', 'a.c', ''],
      ['(?s)a.c', 'a.c', 's'],
      ['(?P<n>[αé]+)1?', '(?<n>[αé]+)1?', ''],
      ['[^a\\n]+', '[^a\\n]+', ''],
      ['(a*)*b', '(a*)*b', ''],
      ['(?:)', '(?:)', ''],
      ['\\pL{2}', '\\p{L}{2}', ''],
      ['[[:digit:]]+|\\Qx.\\E', '[0-9]+|x\\.', ''],
    ];
    // No \r: JavaScript's `.` excludes it, Go's does not.
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', 'c', 'd', 'x', 'y', 'A', 'B', 'é', 'α', '😀', '1', '.', ' ', '\n'),
      maxLength: 8,
    });
    fc.assert(
      fc.property(fc.constantFrom(...patterns), text, ([re2, js, flags], s) => {
        expect(findAll(re2, s)).toEqual(goFindAll(new RegExp(js, `gu${flags}`), s));
        expect(matches(re2, s)).toBe(new RegExp(js, `u${flags}`).test(s));
      }),
      { seed: 20_261_129, numRuns: 3000 },
    );
  });
});

/** Go's allMatches loop (regexp.FindAllString(s, -1)) with RegExp finding each leftmost match from `pos`. */
function goFindAll(re: RegExp, s: string): string[] {
  const out: string[] = [];
  let prevMatchEnd = -1;
  for (let pos = 0; pos <= s.length; ) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) break;
    const end = m.index + m[0].length;
    if (end === pos) {
      if (m.index !== prevMatchEnd) out.push(m[0]);
      pos += (s.codePointAt(pos) ?? 0) > 0xffff ? 2 : 1;
    } else {
      out.push(m[0]);
      pos = end;
    }
    prevMatchEnd = end;
  }
  return out;
}
