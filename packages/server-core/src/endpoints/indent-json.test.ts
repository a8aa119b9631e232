import { describe, expect, it } from 'vitest';
import { indentJson } from './indent-json.ts';

describe('indentJson', () => {
  it('writes what JSON.stringify(v, null, 2) writes', () => {
    const values: unknown[] = [
      1,
      'x',
      null,
      [],
      {},
      { a: [], b: {}, 'c"\\,:{[': 'v,}]"\\" \\u0000 {"x":[1]}', d: -1.5e-7 },
      [1, [2, [3, {}]], { x: [null, true, false] }, [[]], [{}]],
      { metadata: { name: 'a', labels: { 'k/x': 'v' } }, spec: { n: [{ a: { b: { c: [1, 2, { d: 'é😀' }] } } }] } },
    ];
    for (const v of values) expect(indentJson(JSON.stringify(v))).toBe(JSON.stringify(v, null, 2));
  });

  it('indents text nested deeper than JSON.stringify(v, null, 2) reaches', () => {
    const pairs = 2_300; // 4,600 levels: an object and an array each
    const compact = `${'{"a":['.repeat(pairs)}{}${']}'.repeat(pairs)}`;
    expect(() => JSON.stringify(JSON.parse(compact), null, 2)).toThrow(RangeError);
    const lines = indentJson(compact).split('\n');
    // One line per opening bracket, the innermost {}, one per closing bracket.
    expect(lines.length).toBe(4 * pairs + 1);
    lines.forEach((line, i) => {
      const level = i <= 2 * pairs ? i : 4 * pairs - i;
      const want = i === 2 * pairs ? '{}' : i < 2 * pairs ? (i % 2 === 0 ? '{' : '"a": [') : i % 2 === 0 ? '}' : ']';
      if (line !== ' '.repeat(2 * level) + want) expect(line, `line ${i}`).toBe(' '.repeat(2 * level) + want);
    });
  });
});
