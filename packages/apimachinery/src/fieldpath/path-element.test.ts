// Cases from structured-merge-diff's fieldpath/element_test.go and serialize-pe_test.go.
import { describe, expect, it } from 'vitest';
import {
  comparePathElements,
  fieldElement,
  indexElement,
  keyElement,
  type PathElement,
  parsePathElement,
  pathElementsEqual,
  serializePathElement,
  UnknownPathElementTypeError,
  valueElement,
} from './path-element.ts';

const F = fieldElement;
const K = keyElement;
const V = valueElement;
const I = indexElement;

describe('PathElement order (element_test.go TestPathElementLess)', () => {
  // a < b, or a == b when eq.
  const table: [string, PathElement, PathElement, boolean?][] = [
    ['FieldName-1', F('anteater'), F('zebra')],
    ['FieldName-2', F('bee'), F('bee'), true],
    ['FieldName-3', F('capybara'), K({ dog: 3 })],
    ['FieldName-4', F('elephant'), V(4)],
    ['FieldName-5', F('falcon'), I(5)],
    ['Key-1', K({ goat: 1 }), K({ goat: 1 }), true],
    ['Key-2', K({ horse: 1 }), K({ horse: 2 })],
    ['Key-3', K({ ibex: 1 }), K({ jay: 1 })],
    ['Key-4', K({ kite: 1 }), K({ kite: 1, 'kite-2': 1 })],
    ['Key-5', K({ kite: 1 }), V(1)],
    ['Key-6', K({ kite: 1 }), I(5)],
    ['Value-1', V(1), V(2)],
    ['Value-2', V(1), V(1), true],
    ['Value-3', V(1), I(1)],
    ['Index-1', I(1), I(2)],
    ['Index-2', I(1), I(1), true],
  ];
  it.each(table)('%s', (_name, a, b, eq) => {
    if (eq) {
      expect(comparePathElements(a, b)).toBe(0);
      expect(pathElementsEqual(a, b)).toBe(true);
    } else {
      expect(comparePathElements(a, b)).toBe(-1);
      expect(comparePathElements(b, a)).toBe(1);
      expect(pathElementsEqual(a, b)).toBe(false);
    }
    expect(comparePathElements(b, b)).toBe(0);
  });

  it('orders values as value.Compare: numbers < strings < booleans < lists < maps < null', () => {
    const ordered = [-1, 0, 1.5, 2, 'a', 'b', false, true, [1], [1, 2], [2], {}, { a: 1 }, { a: 2 }, { b: 0 }, null];
    for (let i = 0; i < ordered.length; i++) {
      for (let j = 0; j < ordered.length; j++) {
        expect(comparePathElements(V(ordered[i]), V(ordered[j])), `${JSON.stringify(ordered[i])} vs ${JSON.stringify(ordered[j])}`).toBe(
          Math.sign(i - j),
        );
      }
    }
  });

  it('compares keys by sorted field names whatever the object order', () => {
    expect(comparePathElements(K({ b: 'x', a: 1 }), K({ a: 1, b: 'x' }))).toBe(0);
    expect(serializePathElement(K({ b: 'x', a: 1 }))).toBe('k:{"a":1,"b":"x"}');
  });
});

describe('PathElement serialization (serialize-pe_test.go)', () => {
  // TestPathElementRoundTrip
  const roundTrips: [string, PathElement][] = [
    ['i:0', I(0)],
    ['i:1234', I(1234)],
    ['f:', F('')],
    ['f:spec', F('spec')],
    ['f:more-complicated-string', F('more-complicated-string')],
    ['f: string-with-spaces   ', F(' string-with-spaces   ')],
    [
      'f:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
      F('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
    ],
    ['k:{"name":"my-container"}', K({ name: 'my-container' })],
    ['k:{"name":"   name with spaces   "}', K({ name: '   name with spaces   ' })],
    ['k:{"port":"8080","protocol":"TCP"}', K({ port: '8080', protocol: 'TCP' })],
    ['k:{"optionalField":null}', K({ optionalField: null })],
    ['k:{"jsonField":{"A":1,"B":null,"C":"D","E":{"F":"G"}}}', K({ jsonField: { A: 1, B: null, C: 'D', E: { F: 'G' } } })],
    ['k:{"listField":["1","2","3"]}', K({ listField: ['1', '2', '3'] })],
    ['v:null', V(null)],
    ['v:"some-string"', V('some-string')],
    ['v:1234', V(1234)],
    ['v:{"some":"json"}', V({ some: 'json' })],
    ['v:{"some":" some  with spaces  "}', V({ some: ' some  with spaces  ' })],
    ['k:{"name":"app-🚀"}', K({ name: 'app-🚀' })],
    ['k:{"name":"app-💻"}', K({ name: 'app-💻' })],
    ['k:{"name":"app with-unicøde"}', K({ name: 'app with-unicøde' })],
    ['k:{"name":"你好世界"}', K({ name: '你好世界' })],
    ['k:{"name":"Привет, мир"}', K({ name: 'Привет, мир' })],
    ['k:{"name":"नमस्ते दुनिया"}', K({ name: 'नमस्ते दुनिया' })],
    ['k:{"name":"👋"}', K({ name: '👋' })],
    ['f:spec-🚀', F('spec-🚀')],
    ['f:spec-\\n', F('spec-\\n')],
  ];
  it.each(roundTrips)('round trip %s', (text, pe) => {
    expect(parsePathElement(text)).toEqual(pe);
    expect(serializePathElement(pe)).toBe(text);
  });

  it('sorts nested object keys and escapes <, >, & as Go does', () => {
    expect(serializePathElement(V({ b: 1, a: [{ d: 1, c: 2 }] }))).toBe('v:{"a":[{"c":2,"d":1}],"b":1}');
    expect(serializePathElement(V('<a&b>'))).toBe('v:"\\u003ca\\u0026b\\u003e"');
    expect(parsePathElement('v:"\\u003ca\\u0026b\\u003e"')).toEqual(V('<a&b>'));
  });

  it('TestPathElementIgnoreUnknown: an unknown kind is its own error', () => {
    expect(() => parsePathElement('r:Hello')).toThrow(UnknownPathElementTypeError);
  });

  // TestDeserializePathElementError
  const errors = [
    '',
    'no-colon',
    'i:index is not a number',
    'i:1.23',
    'i:',
    'v:invalid json',
    'v:',
    'k:invalid json',
    'k:{"name":invalid}',
    'v:{"some":" \\x41"}',
    'v',
    'k',
    'f',
    'i',
    'v:{"a":"b"',
    'k:{"a":"b"',
    'i: 0',
    'i:0 ',
    'v:{"some":"json"} {"other":"json"}',
    'k:{"name":"my-container"} {"other":"my-container"}',
    'v:{"some":"json"} {"other":"json"',
    'k:{"name":"my-container"} {"other":"my-container"',
    'v:{"some":"json"} garbage',
    'k:{"name":"my-container"} garbage',
    'k:[1]',
    'k:"a"',
  ];
  it.each(errors)('rejects %j', (text) => {
    expect(() => parsePathElement(text)).toThrow(Error);
    expect(() => parsePathElement(text)).not.toThrow(UnknownPathElementTypeError);
  });

  it('error messages', () => {
    expect(() => parsePathElement('x')).toThrow('key must be 2 characters long:');
    expect(() => parsePathElement('no-colon')).toThrow('missing colon: no-colon');
    expect(() => parsePathElement('i:x')).toThrow('strconv.Atoi: parsing "x": invalid syntax');
  });

  // TestDeserializePathElementSuccess
  const successes: [string, PathElement][] = [
    ['v: {"some":"json"}', V({ some: 'json' })],
    ['k: {"name":"my-container"}', K({ name: 'my-container' })],
    ['v:{"some":"json"} ', V({ some: 'json' })],
    ['k:{"name":"my-container"} ', K({ name: 'my-container' })],
    ['k:{"name\\u002dcontainer":"my-container"}', K({ 'name-container': 'my-container' })],
    ['k:{"name\\nwith\\nnewlines":"my-container"}', K({ 'name\nwith\nnewlines': 'my-container' })],
    ['k:{"name\\"quoted\\"":"my-container"}', K({ 'name"quoted"': 'my-container' })],
    ['k:{"name-\\ud83d\\ude80":"my-container"}', K({ 'name-🚀': 'my-container' })],
    ['k:{"\\u4f60\\u597d":"\\u4e16\\u754c"}', K({ 你好: '世界' })],
    ['v:"value\\u002dcontainer"', V('value-container')],
    ['v:"value\\nwith\\nnewlines"', V('value\nwith\nnewlines')],
    ['v:"value\\"quoted\\""', V('value"quoted"')],
    ['v:"value-\\ud83d\\ude80"', V('value-🚀')],
    ['v:"\\u4f60\\u597d"', V('你好')],
    ['k:{"name-🚀":"my-container"}', K({ 'name-🚀': 'my-container' })],
    ['v:"value-🚀"', V('value-🚀')],
    ['i:+5', I(5)],
    ['i:007', I(7)],
  ];
  it.each(successes)('accepts %s', (text, pe) => {
    expect(parsePathElement(text)).toEqual(pe);
  });

  it('parses key fields into sorted order', () => {
    const pe = parsePathElement('k:{"protocol":"TCP","port":80}') as { key: Record<string, unknown> };
    expect(Object.keys(pe.key)).toEqual(['port', 'protocol']);
    expect(serializePathElement(pe)).toBe('k:{"port":80,"protocol":"TCP"}');
  });
});
