import { StatusError } from '@kapi/apimachinery';
import { describe, expect, it, vi } from 'vitest';
import { Lexer } from 'yaml';
import { decodeYAML, MAX_YAML_TOKENS, parseYAMLBody } from './request-body.ts';

const yaml = (text: string): Uint8Array => Buffer.from(text, 'utf8');
/** The value a body decodes to. */
const decoded = (text: string): unknown => parseYAMLBody(yaml(text)).value;

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
    expect(decoded('a: 1\nb: [x, {c: d}]\nbase: &b {k: v}\nm: *b\n')).toEqual({
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

  it('refuses a body of more than MAX_YAML_TOKENS tokens from the lexer, which stops there (3 MiB of `a: [a,a,…]`: 17 s)', () => {
    // Every token the yaml library lexes, the guard's and the parser's: the parser lexes the text again.
    const lex = Lexer.prototype.lex;
    let lexed = 0;
    const spy = vi.spyOn(Lexer.prototype, 'lex').mockImplementation(function* (this: Lexer, ...args) {
      for (const token of lex.apply(this, args)) {
        lexed++;
        yield token;
      }
    });
    try {
      const refused = `error decoding YAML: the document has more than ${MAX_YAML_TOKENS} YAML tokens; send large objects as JSON`;
      const items = Math.floor((3 * 1024 * 1024 - 5) / 2);
      for (const body of [`a: [${Array(items).fill('a').join(',')}]`, `a: 1\n${' \n'.repeat(1_500_000)}`]) {
        lexed = 0;
        expect(refusal(body)).toBe(refused);
        expect(lexed).toBe(MAX_YAML_TOKENS + 1);
      }
      // Under the bound the body is lexed once by the guard and once by the parser.
      const small = 'a: [x, y]\n';
      lexed = 0;
      expect(decoded(small)).toEqual({ a: ['x', 'y'] });
      expect(lexed).toBe(2 * [...lex.call(new Lexer(), small)].length);
    } finally {
      spy.mockRestore();
    }
  });

  it('decodes a body that is JSON as JSON, without the yaml library (apimachinery yaml.ToJSON), guards included', () => {
    const lexed = vi.spyOn(Lexer.prototype, 'lex');
    try {
      const items = Math.floor((3 * 1024 * 1024 - 10) / 4);
      const big = decoded(` \n{"a": [${Array(items).fill('"a"').join(',')}]}`) as { a: string[] };
      expect(big.a).toHaveLength(items);
      const odd = decoded('{"__proto__": {"x": 1}, "n": 1e3, "s": "\\u0061"}') as Record<string, unknown>;
      expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
      expect(Object.keys(odd)).toEqual(['__proto__', 'n', 's']);
      expect(odd).toMatchObject({ n: 1000, s: 'a' });
      expect(refusal(`{"a": ${'{"a": '.repeat(20_000)}1${'}'.repeat(20_001)}`)).toBe('error decoding YAML: exceeded max depth of 10000');
      expect(lexed).not.toHaveBeenCalled();
      // A flow mapping that is not JSON is YAML.
      expect(decoded('{a: b, c: [1, x]}')).toEqual({ a: 'b', c: [1, 'x'] });
      expect(lexed).toHaveBeenCalled();
    } finally {
      lexed.mockRestore();
    }
  });

  it("keeps a repeated key's last value, as sigs.k8s.io/yaml does, and words each repeat as go-yaml's strict decoding, in one pass over each map", () => {
    expect(parseYAMLBody(yaml('a: 1\nb: {c: 1, c: 2}\nd:\n  - e: 1\n    e: 3\n    9: x\n    9: y\na: 4\n'))).toEqual({
      value: { a: 4, b: { c: 2 }, d: [{ e: 3, 9: 'y' }] },
      duplicateKeys: [
        'line 2: key "c" already set in map',
        'line 5: key "e" already set in map',
        'line 7: key 9 already set in map',
        'line 8: key "a" already set in map',
      ],
      strictErrors: [
        'error converting YAML to JSON: yaml: unmarshal errors:\n  line 2: key "c" already set in map\n  line 5: key "e" already set in map\n  line 7: key 9 already set in map\n  line 8: key "a" already set in map',
      ],
    });
    expect(parseYAMLBody(yaml('a: 1\n')).strictErrors).toEqual([]);
    // A block value is reported at its first line; a JSON body's repeats as YAML reads it (the yaml library finds the lines).
    expect(parseYAMLBody(yaml('a:\n  b: 1\na:\n  c: 2\n')).duplicateKeys).toEqual(['line 4: key "a" already set in map']);
    expect(parseYAMLBody(yaml('{"a": 1, "b": {"c": 1,\n "\\u0063": 2}}'))).toEqual({
      value: { a: 1, b: { c: 2 } },
      duplicateKeys: ['line 2: key "c" already set in map'],
      strictErrors: ['error converting YAML to JSON: yaml: unmarshal errors:\n  line 2: key "c" already set in map'],
    });
    // 60,000 keys: the library's pairwise check took half a minute on this.
    const many = `data:\n${Array.from({ length: 60_000 }, (_, i) => `  k${i}: v`).join('\n')}\n  k7: again\n`;
    const doc = parseYAMLBody(yaml(many));
    expect(doc.duplicateKeys).toEqual(['line 60002: key "k7" already set in map']);
    expect((doc.value as { data: Record<string, string> }).data.k7).toBe('again');
  });

  it('decodeYAML (configuration files, manifests) refuses a repeated key: nothing reports it otherwise', () => {
    expect(() => decodeYAML('a: 1\nb: {c: 1, c: 2}\n')).toThrow('Map keys must be unique: "c"');
    expect(() => decodeYAML('{"a": 1, "b": {"c": 1, "\\u0063": 2}}')).toThrow('Map keys must be unique: "b.c"');
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

  it("refuses numbers Go's decoder cannot hold instead of storing them as null", () => {
    expect(refusal('a: .inf')).toBe('error decoding YAML: json: unsupported value: +Inf');
    expect(refusal('a: [1, .nan]')).toBe('error decoding YAML: json: unsupported value: NaN');
    expect(refusal('a: 1e400')).toBe('error decoding YAML: json: cannot unmarshal number 1e400 into Go value of type float64');
    expect(refusal('{"a": -1e400}')).toBe('error decoding YAML: json: cannot unmarshal number -1e400 into Go value of type float64');
    expect(decoded('a: 1e300\nb: ".inf"')).toEqual({ a: 1e300, b: '.inf' });
  });

  it('answers a syntax error with the parser’s message', () => {
    expect(refusal('a: [1, 2\n')).toMatch(/^error decoding YAML: /);
  });

  it('reads the first document of a `---`-separated body and nothing after it, as go-yaml does for kube', () => {
    expect(decoded('a: 1\n---\nb: 2\n')).toEqual({ a: 1 });
    expect(decoded('---\na: 1\n---\nb: [unclosed\n')).toEqual({ a: 1 });
    expect(decoded('kind: A\n---\nkind: B\n')).toEqual({ kind: 'A' });
    // An empty first document is nothing, whatever follows.
    expect(decoded('---\n---\na: 1\n')).toBeNull();
    // The guards still cover the whole body.
    expect(refusal(`a: 1\n---\n${'['.repeat(10_001)}`)).toMatch(/nest|depth/);
  });
});
