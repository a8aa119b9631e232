import { describe, expect, it } from 'vitest';
import { goFloat, goJSON, goNumber, goQuote } from './go-text.ts';

describe('Go value printing', () => {
  it('%v of a float64 switches to exponent form at 1e+06 and below 1e-04', () => {
    expect([1e6, 100000, 123456789, 1.5, 0.0001, 0.00001, -2.5e-7, 1e21].map(goFloat)).toEqual([
      '1e+06',
      '100000',
      '1.23456789e+08',
      '1.5',
      '0.0001',
      '1e-05',
      '-2.5e-07',
      '1e+21',
    ]);
    expect(goNumber(1000000)).toBe('1000000');
  });

  it('strconv.Quote and json.Marshal', () => {
    expect(goQuote('a\u0000b"\n\u00e9')).toBe('"a\\x00b\\"\\né"');
    expect(goJSON({ b: 1, a: [1.5, '<&>'], c: 1e21, d: 1e-7, e: null })).toBe(
      '{"a":[1.5,"\\u003c\\u0026\\u003e"],"b":1,"c":1e+21,"d":1e-07,"e":null}',
    );
  });
});
