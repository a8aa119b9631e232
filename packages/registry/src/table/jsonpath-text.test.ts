import { describe, expect, it } from 'vitest';
import { goJSON } from '../go-json.ts';
import { goNumberText, jsonPathText } from './jsonpath-text.ts';

describe('jsonPathText', () => {
  it('prints scalars as Go’s fmt does', () => {
    expect(jsonPathText('Running')).toBe('Running');
    expect(jsonPathText('')).toBe('');
    expect(jsonPathText(true)).toBe('true');
    expect(jsonPathText(false)).toBe('false');
    expect(jsonPathText(3)).toBe('3');
    expect(jsonPathText(null)).toBe('<no value>');
  });

  it('prints integers in full and other numbers as %v', () => {
    expect(goNumberText(1_000_000)).toBe('1000000');
    expect(goNumberText(2 ** 60)).toBe('1152921504606846976');
    expect(goNumberText(-7)).toBe('-7');
    expect(goNumberText(1.5)).toBe('1.5');
    expect(goNumberText(0.0001)).toBe('0.0001');
    expect(goNumberText(0.00001)).toBe('1e-05');
    expect(goNumberText(123456.5)).toBe('123456.5');
    expect(goNumberText(1234567.5)).toBe('1.2345675e+06');
    expect(goNumberText(2 ** 64)).toBe('1.8446744073709552e+19');
    expect(goNumberText(1.5e-300)).toBe('1.5e-300');
  });

  it('prints objects and arrays as json.Marshal: sorted keys, HTML escaped', () => {
    expect(jsonPathText({ b: 1, a: { d: [1, 'x'], c: null } })).toBe('{"a":{"c":null,"d":[1,"x"]},"b":1}');
    expect(jsonPathText([{ name: 'http', port: 80 }])).toBe('[{"name":"http","port":80}]');
    expect(goJSON({ q: 'a<b>&c\u2028' })).toBe('{"q":"a\\u003cb\\u003e\\u0026c\\u2028"}');
    expect(goJSON({ s: 'line\nbreak "quoted"' })).toBe('{"s":"line\\nbreak \\"quoted\\""}');
    expect(jsonPathText({})).toBe('{}');
    expect(jsonPathText([])).toBe('[]');
  });
});
