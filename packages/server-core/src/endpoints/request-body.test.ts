import { StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { parseYAMLBody } from './request-body.ts';

const yaml = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/** The 400 a body was refused with. */
function refusal(text: string): string {
  try {
    parseYAMLBody(yaml(text));
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(400);
    return (err as StatusError).message;
  }
  throw new Error('expected a 400');
}

describe('parseYAMLBody', () => {
  it('decodes YAML, anchors and aliases included', () => {
    expect(parseYAMLBody(yaml('a: 1\nb: [x, {c: d}]\nbase: &b {k: v}\nm: *b\n'))).toEqual({
      a: 1,
      b: ['x', { c: 'd' }],
      base: { k: 'v' },
      m: { k: 'v' },
    });
  });

  it('refuses flow collections nested deeper than 10,000 from the tokens, before parsing (3 MiB of "[")', () => {
    expect(refusal(`a: ${'['.repeat(3 * 1024 * 1024)}`)).toBe('error decoding YAML: exceeded max depth of 10000');
    expect(refusal(`a: ${'{a: '.repeat(20_000)}x${'}'.repeat(20_000)}`)).toBe('error decoding YAML: exceeded max depth of 10000');
  });

  it('refuses duplicate keys in any map, with one pass over each', () => {
    expect(refusal('a: 1\nb: {c: 1, c: 2}\n')).toBe('error decoding YAML: Map keys must be unique: "c"');
    // 60,000 keys: the library's pairwise check took half a minute on this.
    const many = `data:\n${Array.from({ length: 60_000 }, (_, i) => `  k${i}: v`).join('\n')}\n  k7: again\n`;
    expect(refusal(many)).toBe('error decoding YAML: Map keys must be unique: "k7"');
  });

  it('refuses an alias bomb', () => {
    const levels = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 9; i++) {
      const name = String.fromCharCode(97 + i);
      levels.push(
        `${name}: &${name} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(', ')}]`,
      );
    }
    expect(refusal(levels.join('\n'))).toMatch(/^error decoding YAML: Excessive alias count/);
  });

  it('answers a syntax error with the parser’s message', () => {
    expect(refusal('a: [1, 2\n')).toMatch(/^error decoding YAML: /);
  });
});
