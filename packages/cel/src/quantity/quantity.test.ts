import { describe, expect, it } from 'vitest';
import { ERR_FORMAT_WRONG, ERR_SUFFIX, Quantity } from './quantity.ts';

describe('Quantity.parse (resource.ParseQuantity)', () => {
  it('parses decimal, binary and exponent suffixes exactly', () => {
    expect(Quantity.parse('12Mi').asInt64()).toBe(12n * 1024n * 1024n);
    expect(Quantity.parse('50k').asInt64()).toBe(50000n);
    expect(Quantity.parse('1.5G').asInt64()).toBe(1500000000n);
    expect(Quantity.parse('2e3').asInt64()).toBe(2000n);
    expect(Quantity.parse('-20').asInt64()).toBe(-20n);
    expect(Quantity.parse('+7').asInt64()).toBe(7n);
    expect(Quantity.parse('50.703k').asApproximateFloat()).toBe(50703);
    expect(Quantity.parse('100m').toString()).toBe('0.1');
  });

  it('refuses what kube refuses, with kube’s messages', () => {
    expect(() => Quantity.parse('')).toThrow(ERR_FORMAT_WRONG);
    expect(() => Quantity.parse('10Mo')).toThrow(ERR_FORMAT_WRONG);
    expect(() => Quantity.parse('Three')).toThrow(ERR_FORMAT_WRONG);
    expect(() => Quantity.parse('1,3G')).toThrow(ERR_FORMAT_WRONG);
    expect(() => Quantity.parse('10Mm')).toThrow(ERR_SUFFIX);
    expect(() => Quantity.parse('200K')).toThrow(ERR_SUFFIX);
    expect(ERR_FORMAT_WRONG).toBe("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  });

  it('rounds sub-nano values up, away from zero, as kube does', () => {
    expect(Quantity.parse('0.0000000001').toString()).toBe('0.000000001');
    expect(Quantity.parse('-0.0000000001').toString()).toBe('-0.000000001');
    expect(Quantity.parse('1.0000000001234567890').toString()).toBe('1.000000001');
  });

  it('keeps kube’s int64 vs decimal forms: asInt64 fails on the decimal form and on negative scales', () => {
    expect(Quantity.parse('9999999999999999999999999999999999999G').asInt64()).toBeUndefined();
    expect(Quantity.parse('1.5Gi').asInt64()).toBeUndefined();
    expect(Quantity.parse('1000m').asInt64()).toBeUndefined();
    expect(Quantity.parse('0.5k').asInt64()).toBe(500n);
  });

  it('caps BinarySI at the largest int64', () => {
    expect(Quantity.parse('100000000000000000000Ei').toString()).toBe(`${(1n << 63n) - 1n}`);
  });

  it('compares and adds exactly across suffixes', () => {
    expect(Quantity.parse('200M').cmp(Quantity.parse('0.2G'))).toBe(0);
    expect(Quantity.parse('50M').cmp(Quantity.parse('50Mi'))).toBe(-1);
    expect(Quantity.parse('50Mi').cmp(Quantity.parse('50M'))).toBe(1);
    expect(Quantity.parse('50k').add(Quantity.parse('20')).equals(Quantity.parse('50.02k'))).toBe(true);
    expect(Quantity.parse('50k').sub(Quantity.parse('20')).equals(Quantity.parse('49.98k'))).toBe(true);
    const chain = Quantity.parse('50k').add(Quantity.fromInt(20n)).sub(Quantity.parse('100k')).sub(Quantity.fromInt(-50000n));
    expect(chain.asInt64()).toBe(20n);
  });

  it('falls back to the decimal form when int64 arithmetic would overflow', () => {
    const big = Quantity.parse('9223372036854775807');
    const sum = big.add(Quantity.fromInt(1n));
    expect(sum.toString()).toBe('9223372036854775808');
    expect(sum.asInt64()).toBeUndefined();
  });
});
