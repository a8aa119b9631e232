import { describe, expect, it } from 'vitest';
import { formatResourceVersion, parseResourceVersion } from './resource-version.ts';
import { StatusError } from './status-error.ts';

function errorOf(rv: string): StatusError {
  try {
    parseResourceVersion(rv);
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    return e as StatusError;
  }
  throw new Error(`parseResourceVersion(${JSON.stringify(rv)}) did not throw`);
}

describe('parseResourceVersion', () => {
  it('reads "", "0" and undefined as 0', () => {
    expect(parseResourceVersion('')).toBe(0);
    expect(parseResourceVersion('0')).toBe(0);
    expect(parseResourceVersion(undefined)).toBe(0);
  });

  it('reads decimal revisions', () => {
    expect(parseResourceVersion('12')).toBe(12);
    expect(parseResourceVersion('007')).toBe(7);
    expect(parseResourceVersion('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('rejects anything that is not a non-negative integer with 400 and the kube-apiserver message', () => {
    for (const rv of ['abc', '-1', '1.5', ' 12', '12 ', '+1', '1e3', '0x10', 'v12']) {
      const err = errorOf(rv);
      expect(err.code).toBe(400);
      expect(err.reason).toBe('BadRequest');
      expect(err.message).toBe(
        `invalid resource version: resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`,
      );
    }
  });

  it('rejects revisions beyond what a number holds exactly as out of range', () => {
    const err = errorOf('18446744073709551616');
    expect(err.code).toBe(400);
    expect(err.message).toBe(
      'invalid resource version: resourceVersion: Invalid value: "18446744073709551616": strconv.ParseUint: parsing "18446744073709551616": value out of range',
    );
  });
});

describe('formatResourceVersion', () => {
  it('prints the decimal string and round trips', () => {
    expect(formatResourceVersion(12)).toBe('12');
    expect(formatResourceVersion(0)).toBe('0');
    expect(parseResourceVersion(formatResourceVersion(123456))).toBe(123456);
  });
});
