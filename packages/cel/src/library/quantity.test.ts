import { describe, expect, it } from 'vitest';
import { compileError, evalError, value } from '../test-support/evaluate.ts';

// Cases from k8s.io/apiserver/pkg/cel/library/quantity_test.go (mul, div and divInt are not provided)
describe('kube quantity library', () => {
  it('parses, with kube’s errors', () => {
    expect(value('quantity("12Mi") == quantity("12582912")')).toBe(true);
    expect(evalError('quantity("10Mo")')).toMatch(/^quantities must match the regular expression/);
    expect(evalError('quantity("10Mm")')).toBe("unable to parse quantity's suffix");
  });

  it('isQuantity', () => {
    expect(value('isQuantity("20")')).toBe(true);
    expect(value('isQuantity("20M")')).toBe(true);
    expect(value('isQuantity("20Mi")')).toBe(true);
    expect(value('isQuantity("20Mo")')).toBe(false);
    expect(value('isQuantity("10Mm")')).toBe(false);
    expect(compileError('isQuantity([1, 2, 3])')).toMatch(/found no matching overload for 'isQuantity' applied to/);
  });

  it('equality by value', () => {
    expect(value('quantity("200M") == quantity("200M")')).toBe(true);
    expect(value('quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")')).toBe(true);
    expect(
      value('quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")'),
    ).toBe(true);
    expect(value('quantity("200M") == quantity("0.3G")')).toBe(false);
    expect(value('quantity("200M") != quantity("0.3G")')).toBe(true);
  });

  it('comparisons', () => {
    expect(value('quantity("50M").isLessThan(quantity("50Mi"))')).toBe(true);
    expect(value('quantity("50M").isLessThan(quantity("100M"))')).toBe(true);
    expect(value('quantity("100M").isLessThan(quantity("50M"))')).toBe(false);
    expect(value('quantity("50Mi").isGreaterThan(quantity("50M"))')).toBe(true);
    expect(value('quantity("150Mi").isGreaterThan(quantity("100Mi"))')).toBe(true);
    expect(value('quantity("50M").isGreaterThan(quantity("100M"))')).toBe(false);
    expect(value('quantity("200M").compareTo(quantity("0.2G"))')).toBe(0n);
    expect(value('quantity("50M").compareTo(quantity("50Mi"))')).toBe(-1n);
    expect(value('quantity("50Mi").compareTo(quantity("50M"))')).toBe(1n);
    expect(value('quantity("-5").sign()')).toBe(-1n);
    expect(value('quantity("0").sign()')).toBe(0n);
  });

  it('arithmetic', () => {
    expect(value('quantity("50k").add(quantity("20")) == quantity("50.02k")')).toBe(true);
    expect(value('quantity("50k").add(20).isLessThan(quantity("50020"))')).toBe(false);
    expect(value('quantity("50k").sub(quantity("20")) == quantity("49.98k")')).toBe(true);
    expect(value('quantity("50k").sub(20) == quantity("49980")')).toBe(true);
    expect(value('quantity("50k").add(20).sub(quantity("100k")).asInteger()')).toBe(-49980n);
    expect(value('quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()')).toBe(20n);
  });

  it('conversions to scalars', () => {
    expect(value('quantity("50k").asInteger()')).toBe(50000n);
    expect(evalError('quantity("9999999999999999999999999999999999999G").asInteger()')).toBe('cannot convert value to integer');
    expect(value('quantity("9999999999999999999999999999999999999G").isInteger()')).toBe(false);
    expect(value('quantity("50").isInteger()')).toBe(true);
    expect(value('quantity("50.703k").asApproximateFloat()')).toBe(50703);
    expect(value('quantity("50k").sub(20000).asApproximateFloat() == 30000.0')).toBe(true);
  });

  it('reads quantities from the object under validation', () => {
    expect(value('quantity(self.limit).isGreaterThan(quantity(self.request))', { limit: '2Gi', request: '1500M' })).toBe(true);
  });
});

describe('kubernetes.Quantity and kubernetes.URL are opaque', () => {
  it('their internals are not CEL fields', () => {
    expect(compileError('quantity("1").mantissa')).toContain("undefined field 'mantissa'");
    expect(compileError("url('/a').url")).toContain("undefined field 'url'");
  });
});
