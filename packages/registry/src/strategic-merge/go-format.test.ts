import { describe, expect, it } from 'vitest';
import { goFormat } from './go-format.ts';

describe('goFormat', () => {
  it("renders decoded JSON as Go's %v does", () => {
    expect(goFormat({ b: [1, 'x'], a: null, c: { d: true } })).toBe('map[a:<nil> b:[1 x] c:map[d:true]]');
    expect(goFormat(8080)).toBe('8080');
    expect(goFormat(123456)).toBe('123456');
    expect(goFormat(1000000)).toBe('1e+06');
    expect(goFormat(1234567)).toBe('1.234567e+06');
    expect(goFormat(0.5)).toBe('0.5');
    expect(goFormat(0.00001)).toBe('1e-05');
  });
});
