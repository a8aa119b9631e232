import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRE2, translateRE2 } from './re2-regexp.ts';

const matches = (pattern: string, s: string) => compileRE2(pattern).test(s);
const parseError = (pattern: string) => {
  try {
    translateRE2(pattern);
    return '';
  } catch (e) {
    return (e as Error).message;
  }
};

describe('RE2 patterns on RegExp', () => {
  it("refuses what Go's regexp refuses, with Go's error text", () => {
    expect(parseError('+')).toBe('error parsing regexp: missing argument to repetition operator: `+`');
    expect(parseError('a|*')).toBe('error parsing regexp: missing argument to repetition operator: `*`');
    expect(parseError('a**')).toBe('error parsing regexp: invalid nested repetition operator: `**`');
    expect(parseError('a{2}{3}')).toBe('error parsing regexp: invalid nested repetition operator: `{2}{3}`');
    expect(parseError('(a')).toBe('error parsing regexp: missing closing ): `(a`');
    expect(parseError('a)b')).toBe('error parsing regexp: unexpected ): `a)b`');
    expect(parseError('x[a-')).toBe('error parsing regexp: missing closing ]: `[a-`');
    expect(parseError('[z-a]')).toBe('error parsing regexp: invalid character class range: `z-a`');
    expect(parseError('(a)\\1')).toBe('error parsing regexp: invalid escape sequence: `\\1`');
    expect(parseError('\\Z')).toBe('error parsing regexp: invalid escape sequence: `\\Z`');
    expect(parseError('a(?=b)')).toBe('error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    expect(parseError('a(?!b)')).toBe('error parsing regexp: invalid or unsupported Perl syntax: `(?!`');
    expect(parseError('a{1001}')).toBe('error parsing regexp: invalid repeat count: `{1001}`');
    expect(parseError('a{3,2}')).toBe('error parsing regexp: invalid repeat count: `{3,2}`');
    expect(parseError('\\p{Klingon}')).toBe('error parsing regexp: invalid character class range: `\\p{Klingon}`');
    expect(parseError('a\\')).toBe('error parsing regexp: trailing backslash at end of expression: ``');
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
    // Flags mid-expression apply to the rest of the group only.
    expect(matches('^a(?i)b$', 'aB')).toBe(true);
    expect(matches('^a(?i)b$', 'AB')).toBe(false);
    expect(matches('^(?i:a)b$', 'Ab')).toBe(true);
    expect(matches('^((?i)a)b$', 'AB')).toBe(false);
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
    // \d and \w stay ASCII.
    expect(matches('^\\d$', '٣')).toBe(false);
    expect(matches('^\\w+$', 'é')).toBe(false);
  });

  it('matches unanchored, as MatchString does', () => {
    expect(matches('b+', 'abbc')).toBe(true);
    expect(matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', 'my-name')).toBe(true);
    expect(matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', '-bad')).toBe(false);
  });
});

describe('RE2 patterns in linear time', () => {
  it('answers patterns that make a backtracking engine take exponential time, as Go does at once', () => {
    // RegExp needs ~3^n steps for each of these on n a's and a mismatch at the end: minutes at 30, never at 5,000.
    const input = `${'a'.repeat(5000)}!`;
    expect(matches('^(a|a?)+$', input)).toBe(false);
    expect(matches('(a+)+$', input)).toBe(false);
    expect(matches('^(\\w+\\s?)+$', input)).toBe(false);
    expect(matches('^([a-z0-9]+-?)*[a-z0-9]$', `${'a'.repeat(5000)}-`)).toBe(false);
    expect(matches('^(a|a?)+$', 'a'.repeat(5000))).toBe(true);
  });

  it('agrees with RegExp on what matches, for patterns RegExp answers quickly', () => {
    const patterns = [
      '^a.c$',
      '(?s)^a.c$',
      '(?m)^a$',
      '(?m)a$',
      '\\bab\\b',
      'a\\Bb',
      '^(?i)aB[c-d]$',
      '^a(?i)b$',
      '^((?i)a)b$',
      'x{2,3}y?',
      '^(ab|a)(bc|c)?$',
      '^[^\\n]*$',
      '^(a*)*b',
      '(?:)',
      '^$',
      '^*a',
      'é+',
      '^\\p{Greek}*\\PL?$',
      '[[:digit:]]{2}[[:^alpha:]]',
      '^a{0}b{1,}c{0,2}$',
      '\\Qa.b\\E|c+',
    ];
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', 'c', 'x', 'y', 'A', 'B', 'é', 'α', '1', '2', '-', '.', ' ', '\n'),
      maxLength: 8,
    });
    fc.assert(
      fc.property(fc.constantFrom(...patterns), text, (pattern, s) => {
        expect(matches(pattern, s)).toBe(new RegExp(translateRE2(pattern), 'u').test(s));
      }),
      { seed: 20_261_129, numRuns: 2000 },
    );
  });

  it("refuses nested counts over 1000 copies, and programs over Go's size limit, as Go does", () => {
    expect(() => compileRE2('(a{2}){501}')).toThrow('error parsing regexp: invalid repeat count: `{501}`');
    expect(() => compileRE2('((a{10}){10}){11}')).toThrow('error parsing regexp: invalid repeat count: `{11}`');
    expect(matches('^(a{2}){500}$', 'a'.repeat(1000))).toBe(true);
    expect(() => compileRE2(`(?:${'a{1000}'.repeat(4000)})`)).toThrow('error parsing regexp: expression too large');
  });
});
