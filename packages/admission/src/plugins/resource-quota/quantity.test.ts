import { describe, expect, it } from 'vitest';
import { canonicalQuantity, canonicalText, parseQuantity } from './quantity.ts';

describe('canonicalQuantity', () => {
  it("writes a quantity back as kube's Quantity.String() does", () => {
    const cases: [string | number, string][] = [
      ['0', '0'],
      ['5', '5'],
      [5, '5'],
      ['1000', '1k'],
      ['1200', '1200'],
      ['2000000', '2M'],
      ['0.5', '500m'],
      ['100m', '100m'],
      ['1Ki', '1Ki'],
      ['2048Mi', '2Gi'],
      ['1536Mi', '1536Mi'],
      ['512', '512'],
      ['1e3', '1e3'],
      ['1.5Gi', '1536Mi'],
      ['-3', '-3'],
    ];
    for (const [input, out] of cases) expect([input, canonicalQuantity(parseQuantity(input))]).toEqual([input, out]);
  });

  it('leaves what does not parse undefined', () => {
    expect(canonicalText('abc')).toBeUndefined();
  });
});
