import { describe, expect, it } from 'vitest';
import { COST_LIMIT_EXCEEDED_MESSAGE, PER_CALL_LIMIT } from './cost.ts';
import { CelEnvironment } from './environment.ts';

const env = new CelEnvironment({ variables: { self: 'dyn' } });

function program(expression: string) {
  const result = env.compile(expression);
  if (result.kind === 'error') throw result.error;
  return result.program;
}

describe('runtime cost', () => {
  it('uses kube’s texts and limit', () => {
    expect(COST_LIMIT_EXCEEDED_MESSAGE).toBe('operation cancelled: actual cost limit exceeded');
    expect(PER_CALL_LIMIT).toBe(1_000_000);
  });

  it('literals are free; each evaluated node costs one', () => {
    expect(program('true').evaluate().cost).toBe(0);
    expect(program('self.a').evaluate({ self: { a: 1 } }).cost).toBe(2);
  });

  it('grows with the iterations of a comprehension', () => {
    const p = program('self.all(x, x > 0)');
    const small = p.evaluate({ self: Array.from({ length: 10 }, (_, i) => i + 1) }).cost;
    const large = p.evaluate({ self: Array.from({ length: 1000 }, (_, i) => i + 1) }).cost;
    expect(large).toBeGreaterThan(small * 50);
  });

  it('library functions charge their traversal', () => {
    const list = Array.from({ length: 500 }, (_, i) => i);
    expect(program('self.sum()').evaluate({ self: list }).cost).toBeGreaterThanOrEqual(500);
  });

  it('cancels an evaluation over its limit with cel-go’s message', () => {
    const p = program('self.all(x, self.all(y, x + y >= 0))');
    const result = p.evaluate({ self: Array.from({ length: 100 }, (_, i) => i) }, { costLimit: 1000 });
    expect(result.kind).toBe('error');
    if (result.kind !== 'error') return;
    expect(result.error.reason).toBe('CostLimitExceeded');
    expect(result.error.message).toBe(COST_LIMIT_EXCEEDED_MESSAGE);
    expect(result.cost).toBeGreaterThan(1000);
    expect(result.cost).toBeLessThan(1100);
  });

  it('the default limit is PerCallLimit: a quadratic rule over a large list is cancelled', () => {
    const p = program('self.all(x, self.all(y, x + y >= 0))');
    const result = p.evaluate({ self: Array.from({ length: 2000 }, (_, i) => i) });
    expect(result.kind === 'error' && result.error.reason).toBe('CostLimitExceeded');
    expect(result.cost).toBeGreaterThan(PER_CALL_LIMIT);
    expect(result.cost).toBeLessThan(PER_CALL_LIMIT + 100);
  });

  it('a cancellation is not absorbed by || or &&', () => {
    const p = program('self.exists(x, self.all(y, x + y < 0)) || true');
    const result = p.evaluate({ self: Array.from({ length: 100 }, (_, i) => i) }, { costLimit: 500 });
    expect(result.kind === 'error' && result.error.reason).toBe('CostLimitExceeded');
  });

  it('each evaluation starts from zero', () => {
    const p = program('self.all(x, x >= 0)');
    const self = Array.from({ length: 100 }, (_, i) => i);
    const first = p.evaluate({ self }, { costLimit: 1000 });
    const second = p.evaluate({ self }, { costLimit: 1000 });
    expect(first.kind).toBe('value');
    expect(second.cost).toBe(first.cost);
  });
});
