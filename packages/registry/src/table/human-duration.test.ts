import { describe, expect, it } from 'vitest';
import { humanDuration, shortHumanDuration } from './human-duration.ts';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('humanDuration', () => {
  it.each([
    [-2 * s, '<invalid>'],
    [-1999, '0s'],
    [-500, '0s'],
    [0, '0s'],
    [999, '0s'],
    [59 * s, '59s'],
    [2 * m - 1, '119s'],
    [2 * m, '2m'],
    [2 * m + s, '2m1s'],
    [9 * m + 59 * s, '9m59s'],
    [10 * m, '10m'],
    [10 * m + 59 * s, '10m'],
    [3 * h - 1, '179m'],
    [3 * h, '3h'],
    [3 * h + 5 * m, '3h5m'],
    [8 * h - 1, '7h59m'],
    [8 * h, '8h'],
    [48 * h - 1, '47h'],
    [48 * h, '2d'],
    [2 * d + 5 * h, '2d5h'],
    [8 * d - 1, '7d23h'],
    [8 * d, '8d'],
    [730 * d - 1, '729d'],
    [730 * d, '2y'],
    [740 * d, '2y10d'],
    [8 * 365 * d - 1, '7y364d'],
    [8 * 365 * d, '8y'],
    [20 * 365 * d + 100 * d, '20y'],
  ])('%d ms → %s', (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });
});

describe('shortHumanDuration', () => {
  it.each([
    [-2 * s, '<invalid>'],
    [-1 * s, '0s'],
    [59 * s, '59s'],
    [60 * s, '1m'],
    [59 * m + 59 * s, '59m'],
    [h, '1h'],
    [23 * h + 59 * m, '23h'],
    [d, '1d'],
    [364 * d, '364d'],
    [365 * d, '1y'],
    [1000 * d, '2y'],
  ])('%d ms → %s', (ms, want) => {
    expect(shortHumanDuration(ms)).toBe(want);
  });
});
