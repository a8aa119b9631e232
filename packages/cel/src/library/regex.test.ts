import { describe, expect, it } from 'vitest';
import { compileError, evalError, value } from '../test-support/evaluate.ts';

describe('kube regex library', () => {
  it('find returns the leftmost-first match or an empty string', () => {
    expect(value("'abc 123'.find('[0-9]+')")).toBe('123');
    expect(value("'abc 123'.find('xyz')")).toBe('');
    // Go's FindString: an empty match at the start is the match
    expect(value("'abc 123'.find('[0-9]*')")).toBe('');
  });

  it('findAll returns every match, up to a limit', () => {
    expect(value("'123 abc 456'.findAll('[0-9]+')")).toEqual(['123', '456']);
    expect(value("'123 abc 456'.findAll('[0-9]+', 1)")).toEqual(['123']);
    expect(value("'123 abc 456'.findAll('[0-9]+', 0)")).toEqual([]);
    expect(value("'123 abc 456'.findAll('xyz')")).toEqual([]);
    // Go's FindAllString: an empty match right after a match is skipped, others are kept
    expect(value("'123 abc 456'.findAll('[0-9]*')")).toEqual(['123', '', '', '', '', '456']);
  });

  it('reads RE2 syntax: inline flags, named groups, \\z, POSIX classes, \\Q…\\E', () => {
    expect(value("'ABC'.find('(?i)b')")).toBe('B');
    expect(value("'key=value'.find('(?P<k>[a-z]+)=')")).toBe('key=');
    expect(value("'ab\\nc'.find('c\\\\z')")).toBe('c');
    expect(value("'ab12'.findAll('[[:digit:]]')")).toEqual(['1', '2']);
    expect(value("'a.b*c'.find('\\\\Q.b*\\\\E')")).toBe('.b*');
    expect(value("'αβγ'.find('\\\\pL+')")).toBe('αβγ');
  });

  it('refuses what Go refuses, with "Illegal regex" (a pattern known only at run time)', () => {
    expect(evalError("'a'.find(self)", '(?=a)')).toBe('Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    expect(evalError("'aa'.find(self)", '(a)\\1')).toBe('Illegal regex: error parsing regexp: invalid escape sequence: `\\1`');
    expect(evalError("'a'.findAll(self)", '(a')).toBe('Illegal regex: error parsing regexp: missing closing ): `(a`');
  });
});

describe('matches (RE2, as cel-go)', () => {
  it('reads RE2 syntax in the member and the global form, also inside macros', () => {
    expect(value("'ABC'.matches('(?i)^abc$')")).toBe(true);
    expect(value("matches('abc', '^a')")).toBe(true);
    expect(value("'abc'.matches('^b')")).toBe(false);
    expect(value("'abc'.matches('b')")).toBe(true);
    expect(value("['ab', 'Ab'].all(s, s.matches('(?i)^ab$'))")).toBe(true);
    expect(value("['ab', 'cd'].filter(s, s.matches('^a'))")).toEqual(['ab']);
    expect(value("self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')", 'my-name')).toBe(true);
  });

  it('answers at once where a backtracking engine would take exponential time (RE2 is linear)', () => {
    expect(value("self.matches('^(a|a?)+$')", `${'a'.repeat(5000)}!`)).toBe(false);
    expect(value("self.find('(a+)+b')", `${'a'.repeat(5000)}!`)).toBe('');
  });

  it('refuses look-ahead as RE2 does', () => {
    expect(evalError("'a'.matches(self)", '(?=a)')).toBe('error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
  });

  it('type errors still name matches', () => {
    expect(compileError("'a'.matches(1)")).toContain("found no matching overload for 'matches' applied to 'string.(int)'");
  });
});

describe('constant patterns', () => {
  it('an invalid constant pattern is a compile error, as cel-go reports it when kube builds the program', () => {
    expect(compileError("self.matches('(a')")).toBe(
      "ERROR: <input>:1:14: error parsing regexp: missing closing ): `(a`\n | self.matches('(a')\n | .............^",
    );
    expect(compileError("'x'.find('(?=x)')")).toContain('error parsing regexp: invalid or unsupported Perl syntax');
    expect(compileError("'x'.findAll('a**', 2)")).toContain('error parsing regexp');
    expect(compileError("matches('x', '[a')")).toContain('error parsing regexp: missing closing ]');
  });

  it('a pattern computed at run time is checked at run time', () => {
    expect(evalError("'x'.matches(self)", '(a')).toBe('error parsing regexp: missing closing ): `(a`');
  });
});
