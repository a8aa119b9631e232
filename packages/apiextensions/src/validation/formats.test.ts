import { describe, expect, it } from 'vitest';
import { formatChecker, supportedFormat } from './formats.ts';

const check = (format: string, s: string) => (formatChecker(format) as (s: string) => boolean)(s);

describe('string formats (kube-openapi strfmt.Default)', () => {
  const cases: [string, string[], string[]][] = [
    ['date', ['2024-02-29', '1999-12-31'], ['2023-02-29', '2024-13-01', '24-01-01', '2024-1-1']],
    [
      'date-time',
      ['2024-01-01T10:00:00Z', '2024-01-01t10:00:00.123+02:00'],
      ['2024-01-01 10:00:00', '2024-01-01T24:00:00Z', '2024-01-01T10:00'],
    ],
    ['uuid', ['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000'], ['123e4567-e89b-12d3-a456', 'x']],
    ['uuid4', ['123e4567-e89b-42d3-a456-426614174000'], ['123e4567-e89b-12d3-a456-426614174000']],
    ['email', ['a@b.c', 'Joe <joe@example.com>'], ['no-at', '@b.c']],
    ['hostname', ['example.com', 'a', 'bücher.de'], ['-bad.com', 'a..b', `${'a'.repeat(64)}.com`]],
    ['ipv4', ['10.0.0.1', '010.0.0.1', '::ffff:1.2.3.4'], ['1.2.3', '256.0.0.1', '::1']],
    ['ipv6', ['::1', '2001:db8::1', '::ffff:1.2.3.4'], ['1.2.3.4', 'fe80::1%eth0', ':::']],
    ['cidr', ['10.0.0.0/8', '2001:db8::/32'], ['10.0.0.0/33', '10.0.0.0', '10.0.0.0/+8']],
    ['mac', ['00:11:22:33:44:55', '00-11-22-33-44-55', '0011.2233.4455'], ['00:11:22:33:44', '00:11-22:33:44:55']],
    ['isbn10', ['0-321-75104-3', '0321751043'], ['0321751044']],
    ['isbn13', ['978-0321751041'], ['978-0321751042']],
    ['creditcard', ['4111 1111 1111 1111'], ['4111 1111 1111 1112']],
    ['ssn', ['123-45-6789'], ['123456789', '12-345-6789']],
    ['hexcolor', ['#fff', 'A0B1C2'], ['#ffff']],
    ['rgbcolor', ['rgb(255, 0, 10)'], ['rgb(256,0,0)']],
    ['byte', ['aGVsbG8=', 'YWJj'], ['aGVsbG8', '!!!!']],
    ['duration', ['1h30m', '5 days', '3s'], ['soon', '']],
    ['bsonobjectid', ['507f1f77bcf86cd799439011'], ['507f1f77bcf86cd79943901']],
    ['uri', ['https://example.com/x', '/relative/path', 'mailto:a@b'], ['relative/path', 'http://a b', '']],
    ['k8s-short-name', ['my-name'], ['My-name', '-x', 'a.b']],
    ['k8s-long-name', ['a.b-c.d'], ['a..b', 'A.b']],
  ];
  for (const [format, good, bad] of cases) {
    it(format, () => {
      for (const s of good) expect(check(format, s), `${format} ${s}`).toBe(true);
      for (const s of bad) expect(check(format, s), `${format} ${s}`).toBe(false);
    });
  }

  it('password accepts anything; quantity and unknown formats have no check', () => {
    expect(check('password', '')).toBe(true);
    expect(formatChecker('quantity')).toBeUndefined();
    expect(formatChecker('int32')).toBeUndefined();
  });

  it('StripUnsupportedFormatsPostProcess: the format kept per type', () => {
    expect(supportedFormat('string', 'date-time')).toBe('date-time');
    expect(supportedFormat(undefined, 'uuid')).toBe('uuid');
    expect(supportedFormat('string', 'made-up')).toBe('');
    expect(supportedFormat('integer', 'int32')).toBe('int32');
    expect(supportedFormat('integer', 'date')).toBe('');
    expect(supportedFormat('number', 'double')).toBe('double');
    expect(supportedFormat('number', 'int64')).toBe('');
    expect(supportedFormat('object', 'date')).toBe('');
  });
});
