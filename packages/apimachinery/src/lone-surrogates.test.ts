import { describe, expect, it } from 'vitest';
import { parseJsonDetectingDuplicates } from './json-decode.ts';
import { mayHoldLoneSurrogates, replaceLoneSurrogates } from './lone-surrogates.ts';

describe('lone surrogates', () => {
  it("become U+FFFD in decoded JSON strings and keys, as Go's decoder makes them; pairs stay", () => {
    const { value } = parseJsonDetectingDuplicates('{"a":"\\ud800x","\\udc00k":["\\ud83d\\ude00",{"b":"\\uDBFF"}],"c":"ok"}');
    expect(value).toEqual({ a: '\ufffdx', '\ufffdk': ['😀', { b: '\ufffd' }], c: 'ok' });
  });

  it('keep key order, the later of two keys that become one winning', () => {
    const v = replaceLoneSurrogates({ a: 1, '\ud800': 2, '\udc00': 3, z: 4 });
    expect(Object.entries(v)).toEqual([
      ['a', 1],
      ['\ufffd', 3],
      ['z', 4],
    ]);
  });

  it('are looked for only where an escape could write one', () => {
    expect(mayHoldLoneSurrogates('{"a":"\\ud800"}')).toBe(true);
    expect(mayHoldLoneSurrogates('a: "\\U0000DC00"')).toBe(true);
    expect(mayHoldLoneSurrogates('{"a":"\\u00e9 😀"}')).toBe(false);
  });

  it('walk values nested 10,000 levels deep without overflowing the stack', () => {
    let v: unknown = '\ud800';
    for (let i = 0; i < 10_000; i++) v = [v];
    let inner = replaceLoneSurrogates(v);
    for (let i = 0; i < 10_000; i++) inner = (inner as unknown[])[0];
    expect(inner).toBe('\ufffd');
  });
});
