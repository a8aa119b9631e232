import { StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { checkMicroTimes, checkTimes, microTimeError, timeError } from './micro-time.ts';

describe('MicroTime as kube reads it (time.Parse with RFC3339Micro)', () => {
  it('takes six fractional digits and a Z or numeric zone', () => {
    expect(microTimeError('2026-01-02T03:04:05.123456Z')).toBeUndefined();
    expect(microTimeError('2026-01-02T3:04:05.000000+02:00')).toBeUndefined();
  });

  it("refuses other precisions with Go's words", () => {
    expect(microTimeError('2026-01-02T03:04:05.123Z')).toBe(
      'parsing time "2026-01-02T03:04:05.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"',
    );
    expect(microTimeError('2026-01-02T03:04:05Z')).toBe(
      'parsing time "2026-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
    );
    expect(microTimeError('junk')).toBe('parsing time "junk" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "junk" as "2006"');
    expect(microTimeError('2026-01-02T03:04:05.000000Zx')).toBe('parsing time "2026-01-02T03:04:05.000000Zx": extra text: "x"');
    expect(microTimeError('2026-02-30T03:04:05.000000Z')).toBe('parsing time "2026-02-30T03:04:05.000000Z": day out of range');
  });

  it('answers 400 in the decoder words of kube-apiserver', () => {
    expect(() => checkMicroTimes('Lease', 'v1', [undefined, null, '2026-01-02T03:04:05.000001Z'])).not.toThrow();
    try {
      checkMicroTimes('Lease', 'v1', ['2026-01-02T03:04:05Z']);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(StatusError);
      expect((e as StatusError).code).toBe(400);
      expect((e as StatusError).message).toBe(
        'Lease in version "v1" cannot be handled as a Lease: parsing time "2026-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
      );
    }
  });
});

describe('Time as kube reads it (time.Parse with RFC3339)', () => {
  it('takes whole seconds or any fraction, and a Z or numeric zone', () => {
    expect(timeError('2026-01-02T03:04:05Z')).toBeUndefined();
    expect(timeError('2026-01-02T03:04:05.1+02:00')).toBeUndefined();
    expect(timeError('2026-01-02T03:04:05.123456789Z')).toBeUndefined();
    // Go's hour takes one digit too; a leap day only in a leap year.
    expect(timeError('2026-01-02T3:04:05Z')).toBeUndefined();
    expect(timeError('2024-02-29T23:59:59-07:00')).toBeUndefined();
    expect(timeError('2026-02-29T23:59:59Z')).toBe('parsing time "2026-02-29T23:59:59Z": day out of range');
    expect(timeError('2026-01-02T24:00:00Z')).toBe('parsing time "2026-01-02T24:00:00Z": hour out of range');
    expect(timeError('2026-01-02T03:60:00Z')).toBe('parsing time "2026-01-02T03:60:00Z": minute out of range');
  });

  it("refuses the rest with Go's words", () => {
    expect(timeError('garbage')).toBe('parsing time "garbage" as "2006-01-02T15:04:05Z07:00": cannot parse "garbage" as "2006"');
    expect(timeError('2026-01-02 03:04:05Z')).toBe(
      'parsing time "2026-01-02 03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 03:04:05Z" as "T"',
    );
    expect(timeError('2026-01-02T03:04:05')).toBe(
      'parsing time "2026-01-02T03:04:05" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"',
    );
    expect(timeError('2026-13-02T03:04:05Z')).toBe('parsing time "2026-13-02T03:04:05Z": month out of range');
    expect(() => checkTimes('Event', 'v1', ['2026-01-02T03:04:05Z', undefined, null])).not.toThrow();
    expect(() => checkTimes('Event', 'v1', ['x'])).toThrow(
      'Event in version "v1" cannot be handled as a Event: parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"',
    );
  });
});
