import { describe, expect, it } from 'vitest';
import { compileError, evalError, value } from '../test-support/evaluate.ts';

// Cases from the doc comment of k8s.io/apiserver/pkg/cel/library/lists.go
describe('kube lists library', () => {
  it('isSorted', () => {
    expect(value('[1, 2, 3].isSorted()')).toBe(true);
    expect(value("['a', 'b', 'b', 'c'].isSorted()")).toBe(true);
    expect(value('[2.0, 1.0].isSorted()')).toBe(false);
    expect(value('[1].isSorted()')).toBe(true);
    expect(value('[].isSorted()')).toBe(true);
    expect(value("[duration('1s'), duration('1m')].isSorted()")).toBe(true);
    expect(value("[timestamp('2024-01-02T00:00:00Z'), timestamp('2024-01-01T00:00:00Z')].isSorted()")).toBe(false);
  });

  it('sum', () => {
    expect(value('[1, 3].sum()')).toBe(4n);
    expect(value('[1.0, 3.0].sum()')).toBe(4);
    expect(value('[1u, 3u].sum()')).toEqual(value('4u'));
    expect(String(value("[duration('1m'), duration('1s')].sum()"))).toBe(String(value("duration('1m1s')")));
    expect(value('[].sum()')).toBe(0n);
    expect(value('self.sum()', [])).toBe(0n);
  });

  it('sum overflows like int arithmetic', () => {
    expect(evalError('[9223372036854775807, 1].sum()')).toBe('integer overflow');
  });

  it('min and max', () => {
    expect(value('[1, 3].min()')).toBe(1n);
    expect(value('[1, 3].max()')).toBe(3n);
    expect(value('[1].min()')).toBe(1n);
    expect(value('([0] + self).min()', [])).toBe(0n);
    expect(value("['b', 'a', 'c'].max()")).toBe('c');
    expect(value('[true, false].min()')).toBe(false);
    expect(evalError('[].min()')).toBe('min called on empty list');
    expect(evalError('[].max()')).toBe('max called on empty list');
  });

  it('indexOf and lastIndexOf with CEL equality', () => {
    expect(value('[1, 2, 2, 3].indexOf(2)')).toBe(1n);
    expect(value("['a', 'b', 'b', 'c'].lastIndexOf('b')")).toBe(2n);
    expect(value('[1.0].indexOf(1.1)')).toBe(-1n);
    expect(value("[].indexOf('string')")).toBe(-1n);
    expect(value('[[1], [2]].indexOf([2])')).toBe(1n);
    expect(value('self.indexOf(2)', [1, 2])).toBe(1n);
  });

  it('refuses element types that are not comparable at compile time', () => {
    expect(compileError('[[1], [2]].isSorted()')).toContain("found no matching overload for 'isSorted'");
    expect(compileError("[1, 2].indexOf('a')")).toContain("found no matching overload for 'indexOf'");
  });
});
