import { describe, expect, it } from 'vitest';
import { goFloat, goNumber, goSharpV, isInt64 } from './go-format.ts';

describe('go-format', () => {
  it('prints an int64 with all its digits, past 2^53 and down to its minimum', () => {
    expect(goNumber(80)).toBe('80');
    expect(goNumber(2 ** 60)).toBe('1152921504606846976');
    expect(goNumber(-(2 ** 63))).toBe('-9223372036854775808');
    expect(isInt64(2 ** 63)).toBe(false);
  });

  it('prints a float64 as %v does (shortest %g, two exponent digits)', () => {
    expect(goNumber(2 ** 63)).toBe('9.223372036854776e+18');
    expect(goFloat(1_000_000)).toBe('1e+06');
    expect(goFloat(123456.5)).toBe('123456.5');
    expect(goFloat(0.0001)).toBe('0.0001');
    expect(goFloat(0.00001)).toBe('1e-05');
    expect(goFloat(1.5e-300)).toBe('1.5e-300');
    expect(goFloat(-0)).toBe('-0');
    expect(goFloat(Number.POSITIVE_INFINITY)).toBe('+Inf');
  });

  it('prints %#v of a decoded JSON value', () => {
    expect(goSharpV({ b: [1, 'x', null], a: true })).toBe(
      'map[string]interface {}{"a":true, "b":[]interface {}{1, "x", interface {}(nil)}}',
    );
  });
});
