import { describe, expect, it } from 'vitest';
import { aggregateErrors } from './aggregate-error.ts';

describe('aggregateErrors', () => {
  it('is null for none, the error itself for one, and kube’s bracketed, de-duplicated list for more', () => {
    expect(aggregateErrors([])).toBeNull();
    const one = new TypeError('boom');
    expect(aggregateErrors([one])).toBe(one);
    const many = aggregateErrors([new Error('a'), new Error('b'), new Error('a')]);
    expect(many).toBeInstanceOf(AggregateError);
    expect(many?.message).toBe('[a, b]');
    expect((many as AggregateError).errors).toHaveLength(3);
    expect(aggregateErrors([new Error('same'), new Error('same')])?.message).toBe('same');
    expect(aggregateErrors(['text'])?.message).toBe('text');
  });
});
