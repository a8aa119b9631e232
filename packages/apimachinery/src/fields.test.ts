import { describe, expect, it } from 'vitest';
import { everythingFields, type Fields, fieldSelectorFromSet, parseFieldSelector } from './fields.ts';
import { StatusError } from './status-error.ts';

function parseError(s: string): string {
  try {
    parseFieldSelector(s);
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    const err = e as StatusError;
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: err.message });
    return err.message;
  }
  throw new Error(`expected ${JSON.stringify(s)} to fail`);
}

type Case = [selector: string, fields: Fields, matches: boolean];

describe('parseFieldSelector matching', () => {
  const cases: Case[] = [
    // =
    ['metadata.name=foo', { 'metadata.name': 'foo' }, true],
    ['metadata.name=foo', { 'metadata.name': 'bar' }, false],
    ['metadata.name=foo', {}, false],
    // ==
    ['metadata.name==foo', { 'metadata.name': 'foo' }, true],
    ['metadata.name==foo', { 'metadata.name': 'fo' }, false],
    ['metadata.name==foo', {}, false],
    // !=
    ['metadata.name!=foo', { 'metadata.name': 'bar' }, true],
    ['metadata.name!=foo', { 'metadata.name': 'foo' }, false],
    ['metadata.name!=foo', {}, true],
    // a missing field reads as "" (fields.Set.Get)
    ['spec.nodeName=', {}, true],
    ['spec.nodeName=', { 'spec.nodeName': '' }, true],
    ['spec.nodeName=', { 'spec.nodeName': 'n1' }, false],
    ['spec.nodeName!=', {}, false],
    ['spec.nodeName!=', { 'spec.nodeName': 'n1' }, true],
    ['spec.nodeName==', {}, true],
    // AND
    ['a=1,b=2', { a: '1', b: '2' }, true],
    ['a=1,b=2', { a: '1', b: '3' }, false],
    ['a=1,b!=2', { a: '1' }, true],
    ['a=1,a!=1', { a: '1' }, false],
    // escaped values
    ['a=x\\,y', { a: 'x,y' }, true],
    ['a=x\\=y', { a: 'x=y' }, true],
    ['a=x\\\\y', { a: 'x\\y' }, true],
    ['a=x\\\\,b=y', { a: 'x\\', b: 'y' }, true],
    ['a!=x\\,y', { a: 'x' }, true],
    // prototype properties are not fields
    ['constructor=', {}, true],
    ['toString!=', {}, false],
    ['hasOwnProperty=x', {}, false],
    // no trimming: spaces belong to the field and the value
    [' a = b', { ' a ': ' b' }, true],
    [' a = b', { a: 'b' }, false],
    // field names are not escaped and may hold operator characters before the first operator
    ['a!b=c', { 'a!b': 'c' }, true],
    ['a\\,b=c', { 'a\\,b': 'c' }, true],
    ['status.phase=Running,spec.restartPolicy=Always', { 'status.phase': 'Running', 'spec.restartPolicy': 'Always' }, true],
  ];

  it.each(cases)('%j on %j → %j', (selector, fields, want) => {
    expect(parseFieldSelector(selector).matches(fields)).toBe(want);
  });

  it('works on field objects without a prototype', () => {
    const f = Object.assign(Object.create(null) as Record<string, string>, { a: 'b' });
    expect(parseFieldSelector('a=b,c=').matches(f)).toBe(true);
  });
});

describe('parseFieldSelector structure', () => {
  it('treats empty input as everything', () => {
    for (const s of ['', ',', ',,']) {
      const sel = parseFieldSelector(s);
      expect(sel.empty()).toBe(true);
      expect(sel.matches({})).toBe(true);
      expect(sel.toString()).toBe('');
      expect(sel.requirements).toEqual([]);
    }
    expect(parseFieldSelector('')).toBe(everythingFields);
  });

  it('drops terms with neither field nor value, as the identity transform does', () => {
    expect(parseFieldSelector('=').empty()).toBe(true);
    expect(parseFieldSelector('==').empty()).toBe(true);
    expect(parseFieldSelector('!=').empty()).toBe(true);
    expect(parseFieldSelector('x=1,=').toString()).toBe('x=1');
  });

  it('keeps a term with only a value or only a field', () => {
    expect(parseFieldSelector('=v').requirements).toEqual([{ field: '', operator: '=', value: 'v' }]);
    expect(parseFieldSelector('f=').requirements).toEqual([{ field: 'f', operator: '=', value: '' }]);
  });

  it('reports == as =, like Requirements()', () => {
    expect(parseFieldSelector('a==b,c!=d,e=f').requirements).toEqual([
      { field: 'a', operator: '=', value: 'b' },
      { field: 'c', operator: '!=', value: 'd' },
      { field: 'e', operator: '=', value: 'f' },
    ]);
  });

  it('splits at the first operator: != before ==, == before =', () => {
    expect(parseFieldSelector('a!=b').requirements[0]).toEqual({ field: 'a', operator: '!=', value: 'b' });
    expect(parseFieldSelector('a==b').requirements[0]).toEqual({ field: 'a', operator: '=', value: 'b' });
    expect(parseFieldSelector('a=\\=b').requirements[0]).toEqual({ field: 'a', operator: '=', value: '=b' });
    // a backslash in the field is literal: the "=" after it is the operator
    expect(parseFieldSelector('a\\=b').requirements[0]).toEqual({ field: 'a\\', operator: '=', value: 'b' });
  });

  it('unescapes values', () => {
    expect(parseFieldSelector('a=x\\,y').requirements[0]?.value).toBe('x,y');
    expect(parseFieldSelector('a=x\\=y').requirements[0]?.value).toBe('x=y');
    expect(parseFieldSelector('a=x\\\\y').requirements[0]?.value).toBe('x\\y');
    expect(parseFieldSelector('a=\\\\\\,\\=').requirements[0]?.value).toBe('\\,=');
    expect(parseFieldSelector('a=plain').requirements[0]?.value).toBe('plain');
  });

  it('freezes its requirements', () => {
    const s = parseFieldSelector('a=b');
    expect(Object.isFrozen(s.requirements)).toBe(true);
    expect(Object.isFrozen(s.requirements[0])).toBe(true);
  });
});

describe('toString', () => {
  it.each([
    ['metadata.name=foo', 'metadata.name=foo'],
    ['a==b', 'a=b'],
    ['a!=b', 'a!=b'],
    // terms are sorted as raw text, operator included
    ['b=1,a!=2', 'a!=2,b=1'],
    ['a=1,a!=1', 'a!=1,a=1'],
    ['a=1,a.b=1', 'a.b=1,a=1'],
    ['z=1,,y=2', 'y=2,z=1'],
    // values are escaped again
    ['a=x\\,y', 'a=x\\,y'],
    ['a=x\\=y', 'a=x\\=y'],
    ['a=x\\\\y', 'a=x\\\\y'],
    ['a==\\=', 'a=\\='],
  ])('%j → %j', (input, want) => {
    const s = parseFieldSelector(input);
    expect(s.toString()).toBe(want);
    expect(`${s}`).toBe(want);
    expect(parseFieldSelector(want).toString()).toBe(want);
  });

  it('sorts like Go (UTF-8 bytes), not like UTF-16', () => {
    // U+FFFD sorts before U+1F600 in UTF-8, after its surrogates in UTF-16.
    expect(parseFieldSelector('a=😀,a=\ufffd').toString()).toBe('a=\ufffd,a=😀');
    expect(parseFieldSelector('a=\ufffd,a=😀').toString()).toBe('a=\ufffd,a=😀');
  });
});

describe('requiresExactMatch', () => {
  it('returns the value an = or == term demands', () => {
    expect(parseFieldSelector('metadata.name=foo').requiresExactMatch('metadata.name')).toBe('foo');
    expect(parseFieldSelector('metadata.name==foo').requiresExactMatch('metadata.name')).toBe('foo');
    expect(parseFieldSelector('a=1,metadata.namespace=ns').requiresExactMatch('metadata.namespace')).toBe('ns');
    expect(parseFieldSelector('spec.nodeName=').requiresExactMatch('spec.nodeName')).toBe('');
  });

  it('returns nothing for != or another field', () => {
    expect(parseFieldSelector('metadata.name!=foo').requiresExactMatch('metadata.name')).toBeUndefined();
    expect(parseFieldSelector('metadata.name=foo').requiresExactMatch('metadata.namespace')).toBeUndefined();
    expect(everythingFields.requiresExactMatch('metadata.name')).toBeUndefined();
  });

  it('skips != terms to find an = term on the same field', () => {
    expect(parseFieldSelector('a!=x,a=y').requiresExactMatch('a')).toBe('y');
  });
});

describe('parse errors', () => {
  it('reject a term without an operator, naming the whole selector', () => {
    expect(parseError('foo')).toBe("invalid selector: 'foo'; can't understand 'foo'");
    expect(parseError('a=1,foo')).toBe("invalid selector: 'a=1,foo'; can't understand 'foo'");
    expect(parseError('a!b')).toBe("invalid selector: 'a!b'; can't understand 'a!b'");
    expect(parseError('a<b')).toBe("invalid selector: 'a<b'; can't understand 'a<b'");
  });

  it('report the first bad term in sorted order', () => {
    expect(parseError('b,a')).toBe("invalid selector: 'b,a'; can't understand 'a'");
    expect(parseError('z=\\x,a')).toBe("invalid selector: 'z=\\x,a'; can't understand 'a'");
  });

  it('reject unknown escape sequences', () => {
    expect(parseError('a=\\x')).toBe('invalid field selector: invalid escape sequence: \\x');
    expect(parseError('a=b\\n')).toBe('invalid field selector: invalid escape sequence: \\n');
    expect(parseError('a=\\é')).toBe('invalid field selector: invalid escape sequence: \\é');
  });

  it('reject a trailing backslash', () => {
    expect(parseError('a=b\\')).toBe('invalid field selector: invalid escape sequence: \\');
    expect(parseError('a=\\\\\\')).toBe('invalid field selector: invalid escape sequence: \\');
  });

  it('reject an unescaped = in a value, printing the rune as a number like Go', () => {
    expect(parseError('a=b=c')).toBe('invalid field selector: unescaped character in value: 61');
    expect(parseError('a!=b=c')).toBe('invalid field selector: unescaped character in value: 61');
    expect(parseError('a===b')).toBe('invalid field selector: unescaped character in value: 61');
    expect(parseError('a!==b')).toBe('invalid field selector: unescaped character in value: 61');
  });

  it('keep an escaped comma inside its term', () => {
    // the escaped comma does not split, so the second "=" is part of the first value
    expect(parseError('a=b\\,c=d')).toBe('invalid field selector: unescaped character in value: 61');
  });
});

describe('everythingFields', () => {
  it('matches everything', () => {
    expect(everythingFields.matches({})).toBe(true);
    expect(everythingFields.matches({ 'metadata.name': 'x' })).toBe(true);
    expect(everythingFields.empty()).toBe(true);
    expect(everythingFields.toString()).toBe('');
    expect(everythingFields.requirements).toEqual([]);
  });
});

describe('fieldSelectorFromSet', () => {
  it('is everything for an empty set', () => {
    expect(fieldSelectorFromSet({})).toBe(everythingFields);
  });

  it('requires every pair, ordered by field', () => {
    const s = fieldSelectorFromSet({ 'metadata.namespace': 'ns', 'metadata.name': 'a,b=c' });
    expect(s.requirements).toEqual([
      { field: 'metadata.name', operator: '=', value: 'a,b=c' },
      { field: 'metadata.namespace', operator: '=', value: 'ns' },
    ]);
    expect(s.toString()).toBe('metadata.name=a\\,b\\=c,metadata.namespace=ns');
    expect(parseFieldSelector(s.toString()).requirements).toEqual(s.requirements);
    expect(s.matches({ 'metadata.name': 'a,b=c', 'metadata.namespace': 'ns' })).toBe(true);
    expect(s.matches({ 'metadata.name': 'a,b=c' })).toBe(false);
    expect(s.empty()).toBe(false);
    expect(s.requiresExactMatch('metadata.namespace')).toBe('ns');
  });

  it('treats an empty value as "missing or empty"', () => {
    const s = fieldSelectorFromSet({ 'spec.nodeName': '' });
    expect(s.matches({})).toBe(true);
    expect(s.matches({ 'spec.nodeName': 'n' })).toBe(false);
  });
});
