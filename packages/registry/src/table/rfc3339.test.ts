import { describe, expect, it } from 'vitest';
import { GO_ZERO_TIME_MS, parseRFC3339 } from './rfc3339.ts';

describe('parseRFC3339', () => {
  it('reads UTC, offsets and fractional seconds', () => {
    expect(parseRFC3339('2024-02-29T12:34:56Z')).toBe(Date.UTC(2024, 1, 29, 12, 34, 56));
    expect(parseRFC3339('2024-01-01T02:00:00+02:00')).toBe(Date.UTC(2024, 0, 1));
    expect(parseRFC3339('2023-12-31T23:30:00-00:30')).toBe(Date.UTC(2024, 0, 1));
    expect(parseRFC3339('2024-01-01T00:00:00.123456789Z')).toBe(Date.UTC(2024, 0, 1) + 123);
    expect(parseRFC3339('2024-01-01T00:00:00.5Z')).toBe(Date.UTC(2024, 0, 1) + 500);
  });

  it('places Go’s zero time in year 1', () => {
    expect(parseRFC3339('0001-01-01T00:00:00Z')).toBe(GO_ZERO_TIME_MS);
    expect(GO_ZERO_TIME_MS).toBe(new Date('0001-01-01T00:00:00Z').getTime());
  });

  it.each([
    '2024-01-01',
    '2024-01-01 00:00:00Z',
    '2024-01-01t00:00:00z',
    '2024-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T00:60:00Z',
    '2024-01-01T00:00:00+0200',
    'yesterday',
  ])('rejects %s', (v) => {
    expect(parseRFC3339(v)).toBeUndefined();
  });
});
