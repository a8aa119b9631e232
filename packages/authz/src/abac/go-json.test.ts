import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goJSONSyntaxError } from './go-json.ts';

const parses = (s: string): boolean => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

describe("goJSONSyntaxError (Go encoding/json's scanner messages)", () => {
  it('gives the messages Go gives', () => {
    expect(goJSONSyntaxError('{"a":1}')).toBeNull();
    expect(goJSONSyntaxError(' [1, 2.5e-3, true, null, "x\\u00e9"] ')).toBeNull();
    expect(goJSONSyntaxError('x')).toBe("invalid character 'x' looking for beginning of value");
    expect(goJSONSyntaxError('{"a" 1}')).toBe("invalid character '1' after object key");
    expect(goJSONSyntaxError('{"a":1 "b"}')).toBe(`invalid character '"' after object key:value pair`);
    expect(goJSONSyntaxError('[1 2]')).toBe("invalid character '2' after array element");
    expect(goJSONSyntaxError("{'a':1}")).toBe("invalid character '\\'' looking for beginning of object key string");
    expect(goJSONSyntaxError('"a\tb"')).toBe("invalid character '\\t' in string literal");
    expect(goJSONSyntaxError('"\\x"')).toBe("invalid character 'x' in string escape code");
    expect(goJSONSyntaxError('"\\u12g4"')).toBe("invalid character 'g' in \\u hexadecimal character escape");
    expect(goJSONSyntaxError('01')).toBe("invalid character '1' after top-level value");
    expect(goJSONSyntaxError('1.')).toBe("invalid character ' ' after decimal point in numeric literal");
    expect(goJSONSyntaxError('-x')).toBe("invalid character 'x' in numeric literal");
    expect(goJSONSyntaxError('1e+')).toBe("invalid character ' ' in exponent of numeric literal");
    expect(goJSONSyntaxError('tru')).toBe("invalid character ' ' in literal true (expecting 'e')");
    expect(goJSONSyntaxError('nul!')).toBe("invalid character '!' in literal null (expecting 'l')");
    expect(goJSONSyntaxError('{"a":')).toBe('unexpected end of JSON input');
    expect(goJSONSyntaxError('"abc')).toBe('unexpected end of JSON input');
    expect(goJSONSyntaxError(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)).toBeNull();
    expect(goJSONSyntaxError(`${'['.repeat(10_000)}{`)).toBe("invalid character '{' exceeded max depth");
  });

  it('accepts exactly what JSON.parse accepts', () => {
    fc.assert(
      fc.property(fc.json(), (s) => goJSONSyntaxError(s) === null),
      { numRuns: 300 },
    );
    const nearlyJSON = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom('', '}', ']', ',', ':', '"', ' ', 'x', '\\', '0', '-', '.', 'e', '\n'))
      .map(([s, at, ins]) => s.slice(0, at % (s.length + 1)) + ins + s.slice((at % (s.length + 1)) + (ins === '' ? 1 : 0)));
    fc.assert(
      fc.property(nearlyJSON, (s) => (goJSONSyntaxError(s) === null) === parses(s)),
      { numRuns: 1000 },
    );
  });
});
