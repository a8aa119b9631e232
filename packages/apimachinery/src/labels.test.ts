import { describe, expect, it } from 'vitest';
import {
  everythingLabels,
  type Labels,
  labelSelectorFromMetav1,
  labelSelectorFromSet,
  type MetaV1LabelSelector,
  parseLabelSelector,
} from './labels.ts';
import { StatusError } from './status-error.ts';

const NAME_PART_REGEX_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const QUALIFIED_NAME_MSG =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const LABEL_VALUE_REGEX_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const OPERATORS = 'in, notin, =, ==, !=, gt, lt';
const NOT_INTEGER = "for 'Gt', 'Lt' operators, the value must be an integer";

/** The StatusError a call throws; fails the test when it does not throw one. */
function thrown(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    return e as StatusError;
  }
  throw new Error('expected a StatusError');
}

function parseError(s: string): string {
  const err = thrown(() => parseLabelSelector(s));
  expect(err.code).toBe(400);
  expect(err.reason).toBe('BadRequest');
  expect(err.status.message).toBe(err.message);
  return err.message;
}

function metaError(ls: MetaV1LabelSelector): string {
  const err = thrown(() => labelSelectorFromMetav1(ls));
  expect(err.code).toBe(400);
  expect(err.reason).toBe('BadRequest');
  return err.message;
}

type Case = [selector: string, labels: Labels | undefined, matches: boolean];

describe('parseLabelSelector matching', () => {
  const cases: Case[] = [
    // exists
    ['a', { a: '1' }, true],
    ['a', { a: '' }, true],
    ['a', { b: '1' }, false],
    ['a', {}, false],
    // does not exist
    ['!a', {}, true],
    ['!a', { b: '1' }, true],
    ['!a', { a: '' }, false],
    ['!a', { a: 'x' }, false],
    // =
    ['a=b', { a: 'b' }, true],
    ['a=b', { a: 'c' }, false],
    ['a=b', {}, false],
    ['a=', { a: '' }, true],
    ['a=', {}, false],
    ['a=', { a: 'x' }, false],
    // ==
    ['a==b', { a: 'b' }, true],
    ['a==b', { a: 'B' }, false],
    ['a==b', {}, false],
    // !=
    ['a!=b', { a: 'c' }, true],
    ['a!=b', { a: 'b' }, false],
    ['a!=b', {}, true],
    ['a!=', { a: '' }, false],
    ['a!=', {}, true],
    // in
    ['a in (b,c)', { a: 'b' }, true],
    ['a in (b,c)', { a: 'c' }, true],
    ['a in (b,c)', { a: 'd' }, false],
    ['a in (b,c)', {}, false],
    ['a in (b)', { a: 'b' }, true],
    ['a in (b)', { a: 'c' }, false],
    ['a in ()', { a: '' }, true],
    ['a in ()', {}, false],
    ['a in (,b)', { a: '' }, true],
    ['a in (b,)', { a: '' }, true],
    ['a in (b,,c)', { a: '' }, true],
    ['a in (b,c)', { a: '' }, false],
    // notin
    ['a notin (b,c)', { a: 'd' }, true],
    ['a notin (b,c)', { a: 'b' }, false],
    ['a notin (b,c)', { a: 'c' }, false],
    ['a notin (b,c)', {}, true],
    ['a notin (b)', { a: 'b' }, false],
    ['a notin (b)', { a: 'x' }, true],
    ['a notin ()', { a: '' }, false],
    ['a notin ()', {}, true],
    // gt / lt
    ['a>5', { a: '6' }, true],
    ['a>5', { a: '5' }, false],
    ['a>5', { a: '4' }, false],
    ['a>5', {}, false],
    ['a>5', { a: 'x' }, false],
    ['a>5', { a: '' }, false],
    ['a>5', { a: '6.5' }, false],
    ['a>5', { a: '0x10' }, false],
    ['a>5', { a: '1_0' }, false],
    ['a>5', { a: '+7' }, true],
    ['a>5', { a: '007' }, true],
    ['a<5', { a: '4' }, true],
    ['a<5', { a: '-3' }, true],
    ['a<5', { a: '5' }, false],
    ['a<5', { a: '6' }, false],
    ['a<5', {}, false],
    ['a<5', { a: '-' }, false],
    ['a<5', { a: '+' }, false],
    ['a>0', { a: '-0' }, false],
    // int64 bounds and precision beyond 2^53
    ['a<9223372036854775807', { a: '9223372036854775806' }, true],
    ['a<9223372036854775807', { a: '9223372036854775807' }, false],
    ['a<9223372036854775807', { a: '-9223372036854775808' }, true],
    ['a<9223372036854775807', { a: '-9223372036854775809' }, false],
    ['a>1', { a: '9223372036854775808' }, false],
    ['a>9007199254740992', { a: '9007199254740993' }, true],
    ['a<9007199254740993', { a: '9007199254740992' }, true],
    ['a>9007199254740993', { a: '9007199254740993' }, false],
    ['a>123456789012345', { a: '1234567890123456' }, true],
    // AND
    ['a=1,b=2', { a: '1', b: '2' }, true],
    ['a=1,b=2', { a: '1', b: '3' }, false],
    ['a=1,b=2', { a: '1' }, false],
    ['a,!b,c in (x,y),d notin (z),e!=1,f>3', { a: '', c: 'y', d: 'w', f: '4' }, true],
    ['a,!b,c in (x,y),d notin (z),e!=1,f>3', { a: '', c: 'y', d: 'w', f: '4', b: 'x' }, false],
    // undefined labels are no labels
    ['!a', undefined, true],
    ['a!=b', undefined, true],
    ['a notin (b)', undefined, true],
    ['a', undefined, false],
    ['a=b', undefined, false],
    ['a>1', undefined, false],
    // prototype properties are not labels
    ['constructor', {}, false],
    ['!constructor', {}, true],
    ['constructor!=x', {}, true],
    ['toString in (a,b)', {}, false],
    ['toString notin (a,b)', {}, true],
    ['hasOwnProperty=x', {}, false],
    ['valueOf>1', {}, false],
    // keys with prefixes, values with every allowed character
    ['example.com/app=my_app.v-1', { 'example.com/app': 'my_app.v-1' }, true],
    ['example.com/app=my_app.v-1', { app: 'my_app.v-1' }, false],
    // the keywords are plain identifiers where a key or value is expected
    ['in in (in,notin)', { in: 'notin' }, true],
    ['notin notin (in)', { notin: 'x' }, true],
    ['in=notin', { in: 'notin' }, true],
  ];

  it.each(cases)('%j on %j → %j', (selector, labels, want) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(want);
  });

  it('works on label objects without a prototype', () => {
    const ls = Object.assign(Object.create(null) as Record<string, string>, { a: 'b' });
    expect(parseLabelSelector('a=b,!c').matches(ls)).toBe(true);
  });

  it('is compiled once and reusable', () => {
    const s = parseLabelSelector('a in (x,y,z),b notin (u,v)');
    const objs: Labels[] = Array.from({ length: 1000 }, (_, i) => ({
      a: ['x', 'y', 'q'][i % 3] as string,
      b: ['u', 'w'][i % 2] as string,
    }));
    expect(objs.filter((o) => s.matches(o))).toHaveLength(objs.filter((o) => o.a !== 'q' && o.b === 'w').length);
  });
});

describe('parseLabelSelector syntax', () => {
  it('treats the empty string as everything', () => {
    const s = parseLabelSelector('');
    expect(s).toBe(everythingLabels);
    expect(s.empty()).toBe(true);
    expect(s.matches({})).toBe(true);
    expect(s.matches(undefined)).toBe(true);
    expect(s.matches({ a: 'b' })).toBe(true);
    expect(s.toString()).toBe('');
    expect(s.requirements).toEqual([]);
    expect(s.requiresExactMatch('a')).toBeUndefined();
  });

  it('treats a blank selector as everything', () => {
    expect(parseLabelSelector('   ').empty()).toBe(true);
    expect(parseLabelSelector(' \t\r\n').matches({})).toBe(true);
  });

  it('tolerates whitespace around tokens', () => {
    expect(parseLabelSelector('  a  =  b  ,  c  ').toString()).toBe('a=b,c');
    expect(parseLabelSelector('a\tin\t(\tb\t,\tc\t)').toString()).toBe('a in (b,c)');
    expect(parseLabelSelector('a\nnotin\n(b)\r\n,\r!d').toString()).toBe('a notin (b),!d');
    expect(parseLabelSelector('x > 3 , y < 4').toString()).toBe('x>3,y<4');
    expect(parseLabelSelector('a != b').toString()).toBe('a!=b');
  });

  it('needs no whitespace around symbols', () => {
    expect(parseLabelSelector('a in(b,c)').toString()).toBe('a in (b,c)');
    expect(parseLabelSelector('a,b=c,!d').toString()).toBe('a,b=c,!d');
  });

  it('records every operator', () => {
    const s = parseLabelSelector('a,!b,c=1,d==2,e!=3,f in (4,5),g notin (6),h>7,i<8');
    expect(s.requirements).toEqual([
      { key: 'a', operator: 'exists', values: [] },
      { key: 'b', operator: '!', values: [] },
      { key: 'c', operator: '=', values: ['1'] },
      { key: 'd', operator: '==', values: ['2'] },
      { key: 'e', operator: '!=', values: ['3'] },
      { key: 'f', operator: 'in', values: ['4', '5'] },
      { key: 'g', operator: 'notin', values: ['6'] },
      { key: 'h', operator: 'gt', values: ['7'] },
      { key: 'i', operator: 'lt', values: ['8'] },
    ]);
    expect(s.empty()).toBe(false);
  });

  it('keeps set values unique and sorted', () => {
    expect(parseLabelSelector('a in (c,b,c,a)').requirements[0]?.values).toEqual(['a', 'b', 'c']);
    expect(parseLabelSelector('a in (,b,,)').requirements[0]?.values).toEqual(['', 'b']);
    expect(parseLabelSelector('a notin (,)').requirements[0]?.values).toEqual(['']);
    expect(parseLabelSelector('a in ()').requirements[0]?.values).toEqual(['']);
  });

  it('reads a missing exact value as the empty string', () => {
    expect(parseLabelSelector('a=').requirements[0]).toEqual({ key: 'a', operator: '=', values: [''] });
    expect(parseLabelSelector('a==,b').requirements[0]).toEqual({ key: 'a', operator: '==', values: [''] });
    expect(parseLabelSelector('a!=').requirements[0]).toEqual({ key: 'a', operator: '!=', values: [''] });
  });

  it('freezes its requirements', () => {
    const s = parseLabelSelector('a in (b,c)');
    expect(Object.isFrozen(s.requirements)).toBe(true);
    expect(Object.isFrozen(s.requirements[0])).toBe(true);
    expect(Object.isFrozen(s.requirements[0]?.values)).toBe(true);
  });

  it('ends the input at a NUL character, as Go reads it', () => {
    expect(parseLabelSelector('a\u0000').toString()).toBe('a');
    expect(parseLabelSelector('\u0000a=b').empty()).toBe(true);
    // inside a token the NUL is swallowed; where a token would start it is the end
    expect(parseLabelSelector('a,\u0000b').toString()).toBe('a,b');
    expect(parseError('a, \u0000b')).toBe("found '', expected: identifier after ','");
  });
});

describe('toString', () => {
  it.each([
    ['b=1,a=2', 'a=2,b=1'],
    ['a==1', 'a==1'],
    ['a!=1', 'a!=1'],
    ['a', 'a'],
    ['!a', '!a'],
    ['a in (c,b)', 'a in (b,c)'],
    ['a notin (z,y,x)', 'a notin (x,y,z)'],
    ['a in (b)', 'a in (b)'],
    ['a>1', 'a>1'],
    ['a<1', 'a<1'],
    ['x in (foo,,baz),y,z notin ()', 'x in (,baz,foo),y,z notin ()'],
    ['z,!y,x=1,w in (a),v notin (b),u>2,t<3', 't<3,u>2,v notin (b),w in (a),x=1,!y,z'],
    // the sort is by key and stable for requirements on one key
    ['b=1,a=2,b!=3', 'a=2,b=1,b!=3'],
    ['b!=3,a=2,b=1', 'a=2,b!=3,b=1'],
    ['a=1,Z=1,B=1', 'B=1,Z=1,a=1'],
    ['example.com/b,a.io/c,a', 'a,a.io/c,example.com/b'],
  ])('%j → %j', (input, want) => {
    const s = parseLabelSelector(input);
    expect(s.toString()).toBe(want);
    expect(`${s}`).toBe(want);
    // the canonical form parses back to itself
    expect(parseLabelSelector(want).toString()).toBe(want);
  });
});

describe('requiresExactMatch', () => {
  it('returns the value that =, == or a one-value in demand', () => {
    expect(parseLabelSelector('a=b').requiresExactMatch('a')).toBe('b');
    expect(parseLabelSelector('a==b').requiresExactMatch('a')).toBe('b');
    expect(parseLabelSelector('a in (b)').requiresExactMatch('a')).toBe('b');
    expect(parseLabelSelector('x,a=').requiresExactMatch('a')).toBe('');
  });

  it('returns nothing for other operators or other keys', () => {
    expect(parseLabelSelector('a in (b,c)').requiresExactMatch('a')).toBeUndefined();
    expect(parseLabelSelector('a!=b').requiresExactMatch('a')).toBeUndefined();
    expect(parseLabelSelector('a notin (b)').requiresExactMatch('a')).toBeUndefined();
    expect(parseLabelSelector('a').requiresExactMatch('a')).toBeUndefined();
    expect(parseLabelSelector('!a').requiresExactMatch('a')).toBeUndefined();
    expect(parseLabelSelector('a>1').requiresExactMatch('a')).toBeUndefined();
    expect(parseLabelSelector('a=b').requiresExactMatch('b')).toBeUndefined();
  });

  it('looks only at the first requirement on the key, as Kubernetes does', () => {
    expect(parseLabelSelector('a!=x,a=y').requiresExactMatch('a')).toBeUndefined();
    expect(parseLabelSelector('a=y,a!=x').requiresExactMatch('a')).toBe('y');
  });
});

describe('parse errors', () => {
  it('are 400 BadRequest Status errors', () => {
    const err = thrown(() => parseLabelSelector('a b'));
    expect(err.status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'BadRequest', code: 400 });
  });

  it.each([
    // top level
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['(a)', "found '(', expected: !, identifier, or 'end of string'"],
    ['a,', "found '', expected: identifier after ','"],
    ['a,,b', "found ',', expected: identifier after ','"],
    ['a,=b', "found '=', expected: identifier after ','"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['a in (b) c', "found 'c', expected: ',' or 'end of string'"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['!a in (b)', "found 'in', expected: ',' or 'end of string'"],
    // keys
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!!a', "unable to parse requirement: found '!', expected: identifier"],
    ['!,a', "unable to parse requirement: found ',', expected: identifier"],
    // operators
    ['a b', `unable to parse requirement: found 'b', expected: ${OPERATORS}`],
    ['a (b)', `unable to parse requirement: found '(', expected: ${OPERATORS}`],
    ['a !b', `unable to parse requirement: found '!', expected: ${OPERATORS}`],
    ['a\u0000b', `unable to parse requirement: found 'b', expected: ${OPERATORS}`],
    // set values
    ['a in', "unable to parse requirement: found '' expected: '('"],
    ['a notin b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in ((', "unable to parse requirement: found '(', expected: ',', ')' or identifier"],
    ['a in (', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'"],
    ['a in (b=c)', "unable to parse requirement: found '=', expected: ',' or ')'"],
    ['a in (b,(', "unable to parse requirement: found '(', expected: ',', or identifier"],
    ['a in (,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['a in (b,', "unable to parse requirement: found '', expected: ',', or identifier"],
    // exact values
    ['a=(', "unable to parse requirement: found '(', expected: identifier"],
    ['a>=1', "unable to parse requirement: found '=', expected: identifier"],
    ['a===b', "unable to parse requirement: found '=', expected: identifier"],
    ['a!=!b', "unable to parse requirement: found '!', expected: identifier"],
  ])('%j → %j', (input, message) => {
    expect(parseError(input)).toBe(message);
  });

  it('reject invalid keys with the nil-path field error', () => {
    expect(parseError('-a')).toBe(`unable to parse requirement: <nil>: Invalid value: "-a": ${NAME_PART_REGEX_MSG}`);
    expect(parseError('a/b/c=d')).toBe(`unable to parse requirement: <nil>: Invalid value: "a/b/c": ${QUALIFIED_NAME_MSG}`);
    expect(parseError('/a')).toBe('unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty');
    expect(parseError('x.io/')).toBe(
      `unable to parse requirement: <nil>: Invalid value: "x.io/": name part must be non-empty; ${NAME_PART_REGEX_MSG}`,
    );
    expect(parseError(`${'k'.repeat(64)}`)).toBe(
      `unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters`,
    );
    expect(parseError('!a_')).toBe(`unable to parse requirement: <nil>: Invalid value: "a_": ${NAME_PART_REGEX_MSG}`);
  });

  it('reject invalid values with their index and key', () => {
    expect(parseError('a=-b')).toBe(`unable to parse requirement: values[0][a]: Invalid value: "-b": ${LABEL_VALUE_REGEX_MSG}`);
    expect(parseError('a!=b_')).toBe(`unable to parse requirement: values[0][a]: Invalid value: "b_": ${LABEL_VALUE_REGEX_MSG}`);
    expect(parseError(`a==${'v'.repeat(64)}`)).toBe(
      `unable to parse requirement: values[0][a]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`,
    );
    // set values are sorted before validation, so the index is the sorted position
    expect(parseError('a in (z,-y,x)')).toBe(`unable to parse requirement: values[0][a]: Invalid value: "-y": ${LABEL_VALUE_REGEX_MSG}`);
    expect(parseError('a notin (b,c.)')).toBe(`unable to parse requirement: values[1][a]: Invalid value: "c.": ${LABEL_VALUE_REGEX_MSG}`);
  });

  it('aggregate several errors in brackets', () => {
    expect(parseError('a in (-x,-y)')).toBe(
      `unable to parse requirement: [values[0][a]: Invalid value: "-x": ${LABEL_VALUE_REGEX_MSG}, values[1][a]: Invalid value: "-y": ${LABEL_VALUE_REGEX_MSG}]`,
    );
  });

  it('require an integer for gt and lt', () => {
    expect(parseError('a>b')).toBe(`unable to parse requirement: values[0]: Invalid value: "b": ${NOT_INTEGER}`);
    expect(parseError('a<1.5')).toBe(`unable to parse requirement: values[0]: Invalid value: "1.5": ${NOT_INTEGER}`);
    expect(parseError('a>')).toBe(`unable to parse requirement: values[0]: Invalid value: "": ${NOT_INTEGER}`);
    expect(parseError('a>9223372036854775808')).toBe(
      `unable to parse requirement: values[0]: Invalid value: "9223372036854775808": ${NOT_INTEGER}`,
    );
    expect(parseError('a<-x')).toBe(
      `unable to parse requirement: [values[0]: Invalid value: "-x": ${NOT_INTEGER}, values[0][a]: Invalid value: "-x": ${LABEL_VALUE_REGEX_MSG}]`,
    );
    // a negative bound is an integer but not a label value
    expect(parseError('a>-1')).toBe(`unable to parse requirement: values[0][a]: Invalid value: "-1": ${LABEL_VALUE_REGEX_MSG}`);
  });

  it('quote bad values as Go does', () => {
    expect(parseError('a="b"')).toBe(`unable to parse requirement: values[0][a]: Invalid value: "\\"b\\"": ${LABEL_VALUE_REGEX_MSG}`);
    expect(parseError('a=b\\c')).toBe(`unable to parse requirement: values[0][a]: Invalid value: "b\\\\c": ${LABEL_VALUE_REGEX_MSG}`);
    expect(parseError('a=é')).toBe(`unable to parse requirement: values[0][a]: Invalid value: "é": ${LABEL_VALUE_REGEX_MSG}`);
    expect(parseError('a=x\u0001\u007f')).toBe(
      `unable to parse requirement: values[0][a]: Invalid value: "x\\x01\\x7f": ${LABEL_VALUE_REGEX_MSG}`,
    );
    expect(parseError('a=x\u0007\u000b\u000c\u0008')).toBe(
      `unable to parse requirement: values[0][a]: Invalid value: "x\\a\\v\\f\\b": ${LABEL_VALUE_REGEX_MSG}`,
    );
    expect(parseError('a=x\u200b')).toBe(`unable to parse requirement: values[0][a]: Invalid value: "x\\u200b": ${LABEL_VALUE_REGEX_MSG}`);
    expect(parseError('a=x\u{e0001}')).toBe(
      `unable to parse requirement: values[0][a]: Invalid value: "x\\U000e0001": ${LABEL_VALUE_REGEX_MSG}`,
    );
    expect(parseError('a=😀')).toBe(`unable to parse requirement: values[0][a]: Invalid value: "😀": ${LABEL_VALUE_REGEX_MSG}`);
  });
});

describe('everythingLabels', () => {
  it('matches everything and says so', () => {
    expect(everythingLabels.matches({})).toBe(true);
    expect(everythingLabels.matches(undefined)).toBe(true);
    expect(everythingLabels.matches({ a: 'b' })).toBe(true);
    expect(everythingLabels.empty()).toBe(true);
    expect(everythingLabels.toString()).toBe('');
    expect(everythingLabels.requirements).toEqual([]);
    expect(everythingLabels.requiresExactMatch('a')).toBeUndefined();
  });
});

describe('labelSelectorFromSet', () => {
  it('is everything for an empty set', () => {
    expect(labelSelectorFromSet({})).toBe(everythingLabels);
  });

  it('requires every pair, sorted by key', () => {
    const s = labelSelectorFromSet({ b: '2', a: '1' });
    expect(s.toString()).toBe('a=1,b=2');
    expect(s.requirements).toEqual([
      { key: 'a', operator: '=', values: ['1'] },
      { key: 'b', operator: '=', values: ['2'] },
    ]);
    expect(s.matches({ a: '1', b: '2', c: '3' })).toBe(true);
    expect(s.matches({ a: '1' })).toBe(false);
    expect(s.matches({ a: '1', b: '3' })).toBe(false);
    expect(s.matches(undefined)).toBe(false);
    expect(s.empty()).toBe(false);
    expect(s.requiresExactMatch('b')).toBe('2');
    expect(s.requiresExactMatch('c')).toBeUndefined();
  });

  it('matches an empty value only when the label is present', () => {
    const s = labelSelectorFromSet({ a: '' });
    expect(s.matches({ a: '' })).toBe(true);
    expect(s.matches({})).toBe(false);
  });

  it('does not validate, like labels.SelectorFromSet', () => {
    const s = labelSelectorFromSet({ 'not a key': 'not a value!' });
    expect(s.matches({ 'not a key': 'not a value!' })).toBe(true);
    expect(s.toString()).toBe('not a key=not a value!');
  });
});

describe('labelSelectorFromMetav1', () => {
  it('selects nothing for null and undefined', () => {
    for (const s of [labelSelectorFromMetav1(null), labelSelectorFromMetav1(undefined)]) {
      expect(s.matches({})).toBe(false);
      expect(s.matches(undefined)).toBe(false);
      expect(s.matches({ a: 'b' })).toBe(false);
      expect(s.empty()).toBe(false);
      expect(s.toString()).toBe('');
      expect(s.requirements).toEqual([]);
      expect(s.requiresExactMatch('a')).toBeUndefined();
    }
  });

  it('selects everything for an empty selector', () => {
    expect(labelSelectorFromMetav1({})).toBe(everythingLabels);
    expect(labelSelectorFromMetav1({ matchLabels: {}, matchExpressions: [] })).toBe(everythingLabels);
  });

  it('combines matchLabels and matchExpressions, sorted by key', () => {
    const s = labelSelectorFromMetav1({
      matchLabels: { tier: 'web', app: 'shop' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'staging'] },
        { key: 'zone', operator: 'NotIn', values: ['z1'] },
        { key: 'canary', operator: 'DoesNotExist' },
        { key: 'owner', operator: 'Exists', values: [] },
      ],
    });
    expect(s.toString()).toBe('app=shop,!canary,env in (prod,staging),owner,tier=web,zone notin (z1)');
    expect(s.requirements.map((r) => r.operator)).toEqual(['=', '!', 'in', 'exists', '=', 'notin']);
    const base = { app: 'shop', tier: 'web', env: 'prod', owner: 'me' };
    expect(s.matches(base)).toBe(true);
    expect(s.matches({ ...base, zone: 'z2' })).toBe(true);
    expect(s.matches({ ...base, zone: 'z1' })).toBe(false);
    expect(s.matches({ ...base, canary: 'true' })).toBe(false);
    expect(s.matches({ ...base, env: 'dev' })).toBe(false);
    expect(s.matches({ ...base, owner: undefined as unknown as string })).toBe(false);
    expect(s.requiresExactMatch('app')).toBe('shop');
  });

  it('keeps expression values as given but prints them sorted', () => {
    const s = labelSelectorFromMetav1({ matchExpressions: [{ key: 'a', operator: 'In', values: ['c', 'b', 'c'] }] });
    expect(s.requirements[0]?.values).toEqual(['c', 'b', 'c']);
    expect(s.toString()).toBe('a in (b,c,c)');
    expect(s.matches({ a: 'b' })).toBe(true);
  });

  it("does not share the caller's values array", () => {
    const values = ['x'];
    const s = labelSelectorFromMetav1({ matchExpressions: [{ key: 'a', operator: 'In', values }] });
    values.push('y');
    expect(s.matches({ a: 'y' })).toBe(false);
  });

  it('rejects an In or NotIn without values', () => {
    expect(metaError({ matchExpressions: [{ key: 'a', operator: 'In' }] })).toBe(
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    );
    expect(metaError({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] })).toBe(
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    );
  });

  it('rejects values on Exists and DoesNotExist', () => {
    expect(metaError({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x', 'y'] }] })).toBe(
      'values: Invalid value: []string{"x", "y"}: values set must be empty for exists and does not exist',
    );
    expect(metaError({ matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }] })).toBe(
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    );
  });

  it('rejects an unknown operator', () => {
    const bad = { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] } as unknown as MetaV1LabelSelector;
    expect(metaError(bad)).toBe('"Gt" is not a valid pod selector operator');
    const missing = { matchExpressions: [{ key: 'a' }] } as unknown as MetaV1LabelSelector;
    expect(metaError(missing)).toBe('"" is not a valid pod selector operator');
    const inherited = { matchExpressions: [{ key: 'a', operator: 'toString' }] } as unknown as MetaV1LabelSelector;
    expect(metaError(inherited)).toBe('"toString" is not a valid pod selector operator');
  });

  it('rejects bad keys and values with their field paths', () => {
    expect(metaError({ matchLabels: { '-a': 'b' } })).toBe(`key: Invalid value: "-a": ${NAME_PART_REGEX_MSG}`);
    expect(metaError({ matchLabels: { a: 'b!' } })).toBe(`values[0][a]: Invalid value: "b!": ${LABEL_VALUE_REGEX_MSG}`);
    expect(metaError({ matchExpressions: [{ key: 'a/b/c', operator: 'Exists' }] })).toBe(
      `key: Invalid value: "a/b/c": ${QUALIFIED_NAME_MSG}`,
    );
    expect(metaError({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['ok', '-no'] }] })).toBe(
      `values[1][a]: Invalid value: "-no": ${LABEL_VALUE_REGEX_MSG}`,
    );
    expect(metaError({ matchLabels: { 'bad key': 'v!' } })).toBe(
      `[key: Invalid value: "bad key": ${NAME_PART_REGEX_MSG}, values[0][bad key]: Invalid value: "v!": ${LABEL_VALUE_REGEX_MSG}]`,
    );
    expect(metaError({ matchExpressions: [{ key: '', operator: 'In' }] })).toBe(
      `[key: Invalid value: "": name part must be non-empty; ${NAME_PART_REGEX_MSG}, values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty]`,
    );
  });

  it('reports the first bad matchLabels entry in key order', () => {
    expect(metaError({ matchLabels: { z: '-z', a: '-a' } })).toBe(`values[0][a]: Invalid value: "-a": ${LABEL_VALUE_REGEX_MSG}`);
  });
});
