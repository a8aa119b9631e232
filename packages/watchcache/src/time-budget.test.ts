import { FakeClock } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { TimeBudget } from './time-budget.ts';

describe('TimeBudget', () => {
  it('hands out what it holds, refills 50 ms per second up to 100 ms, and takes back what was not used', () => {
    const clock = new FakeClock();
    const b = new TimeBudget(clock);
    expect(b.takeAvailable()).toBe(100);
    expect(b.takeAvailable()).toBe(0);
    clock.advance(1000);
    expect(b.takeAvailable()).toBe(50);
    b.returnUnused(30);
    clock.advance(200);
    expect(b.takeAvailable()).toBe(40);
    clock.advance(60_000);
    expect(b.takeAvailable()).toBe(100);
    b.returnUnused(500);
    expect(b.takeAvailable()).toBe(100);
  });
});
