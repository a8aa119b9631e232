import { describe, expect, it } from 'vitest';
import { FakeClock, realClock } from './clock.ts';

describe('FakeClock', () => {
  it('starts at 2026-01-01 UTC by default, or where it is told', () => {
    expect(new FakeClock().now()).toBe(Date.UTC(2026, 0, 1));
    expect(new FakeClock(1000).now()).toBe(1000);
  });

  it('moves only on advance', () => {
    const clock = new FakeClock(0);
    expect(clock.now()).toBe(0);
    clock.advance(250);
    expect(clock.now()).toBe(250);
    clock.advance(0);
    expect(clock.now()).toBe(250);
  });

  it('fires timers in due order, ties in the order they were set, with now() at their due time', () => {
    const clock = new FakeClock(0);
    const fired: [string, number][] = [];
    clock.setTimeout(() => fired.push(['c', clock.now()]), 30);
    clock.setTimeout(() => fired.push(['a', clock.now()]), 10);
    clock.setTimeout(() => fired.push(['b1', clock.now()]), 20);
    clock.setTimeout(() => fired.push(['b2', clock.now()]), 20);
    clock.advance(100);
    expect(fired).toEqual([
      ['a', 10],
      ['b1', 20],
      ['b2', 20],
      ['c', 30],
    ]);
    expect(clock.now()).toBe(100);
  });

  it('fires only the timers that fall due, the rest on a later advance', () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(5), 5);
    clock.setTimeout(() => fired.push(50), 50);
    clock.advance(10);
    expect(fired).toEqual([5]);
    expect(clock.pending).toBe(1);
    clock.advance(39);
    expect(fired).toEqual([5]);
    clock.advance(1);
    expect(fired).toEqual([5, 50]);
    expect(clock.pending).toBe(0);
  });

  it('fires a timer set during advance when it falls inside the same window', () => {
    const clock = new FakeClock(0);
    const fired: [string, number][] = [];
    clock.setTimeout(() => {
      fired.push(['first', clock.now()]);
      clock.setTimeout(() => fired.push(['nested', clock.now()]), 15);
      clock.setTimeout(() => fired.push(['late', clock.now()]), 500);
    }, 10);
    clock.advance(100);
    expect(fired).toEqual([
      ['first', 10],
      ['nested', 25],
    ]);
    expect(clock.pending).toBe(1);
    clock.advance(410);
    expect(fired.at(-1)).toEqual(['late', 510]);
  });

  it('re-arming timers (a ticker) fire once per period', () => {
    const clock = new FakeClock(0);
    const ticks: number[] = [];
    const tick = (): void => {
      ticks.push(clock.now());
      clock.setTimeout(tick, 100);
    };
    clock.setTimeout(tick, 100);
    clock.advance(350);
    expect(ticks).toEqual([100, 200, 300]);
  });

  it('treats zero and negative delays as due now', () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('zero'), 0);
    clock.setTimeout(() => fired.push('negative'), -5);
    expect(fired).toEqual([]);
    clock.advance(0);
    expect(fired).toEqual(['zero', 'negative']);
  });

  it('clearTimeout cancels a pending timer, even from inside another timer', () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    const cancelled = clock.setTimeout(() => fired.push('cancelled'), 10);
    clock.setTimeout(() => fired.push('kept'), 10);
    expect(clock.pending).toBe(2);
    clock.clearTimeout(cancelled);
    expect(clock.pending).toBe(1);

    const later = clock.setTimeout(() => fired.push('later'), 20);
    clock.setTimeout(() => clock.clearTimeout(later), 15);
    clock.advance(100);
    expect(fired).toEqual(['kept']);
    expect(clock.pending).toBe(0);
  });

  it('clearing a timer that already fired is harmless', () => {
    const clock = new FakeClock(0);
    let count = 0;
    const t = clock.setTimeout(() => count++, 1);
    clock.advance(1);
    clock.clearTimeout(t);
    clock.advance(10);
    expect(count).toBe(1);
  });
});

describe('realClock', () => {
  it('reads the system time', () => {
    const before = Date.now();
    const now = realClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('runs timers, lets them be cancelled and unref-ed', async () => {
    const fired: string[] = [];
    const cancelled = realClock.setTimeout(() => fired.push('cancelled'), 1);
    realClock.clearTimeout(cancelled);
    const handle = realClock.setTimeout(() => fired.push('unrefed'), 1);
    expect(typeof handle.unref).toBe('function');
    handle.unref?.();
    await new Promise<void>((resolve) => realClock.setTimeout(resolve, 5));
    expect(fired).toEqual(['unrefed']);
  });
});
