import { describe, expect, it } from 'vitest';
import { approximateJsonSize } from './json-size.ts';

describe('approximateJsonSize', () => {
  it('is the JSON length of ASCII values without escapes', () => {
    const v = { a: 'bc', n: [1, 22, -3.5], t: true, f: false, z: null, o: {}, e: [], nested: { k: [{ x: 'y' }] } };
    expect(approximateJsonSize(v)).toBe(JSON.stringify(v).length);
    expect(approximateJsonSize('x')).toBe(3);
  });
});
