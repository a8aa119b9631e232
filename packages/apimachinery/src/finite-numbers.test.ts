import { describe, expect, it } from 'vitest';
import { nonFiniteNumberError } from './finite-numbers.ts';
import { parseJsonDetectingDuplicates } from './json-decode.ts';
import { StatusError } from './status-error.ts';

const of = (text: string) => nonFiniteNumberError(text, JSON.parse(text));

describe('numbers Go cannot decode', () => {
  it('names a JSON number beyond float64 as Go does, whatever its sign or form', () => {
    expect(of('{"a":1e400}')).toBe('json: cannot unmarshal number 1e400 into Go value of type float64');
    expect(of('{"s":"1e999","a":[1,-2.5E+400]}')).toBe('json: cannot unmarshal number -2.5E+400 into Go value of type float64');
    expect(of(`{"a":${'9'.repeat(400)}}`)).toBe(`json: cannot unmarshal number ${'9'.repeat(400)} into Go value of type float64`);
  });

  it('leaves large but finite numbers and look-alike strings alone', () => {
    expect(of('{"a":1e308,"b":1.7976931348623157e308,"c":1e-400}')).toBeUndefined();
    expect(of('{"a":"1e400","b":".inf"}')).toBeUndefined();
  });

  it("names YAML's infinities and NaN as json.Marshal does", () => {
    expect(nonFiniteNumberError('a: .inf', { a: Number.POSITIVE_INFINITY })).toBe('json: unsupported value: +Inf');
    expect(nonFiniteNumberError('a: [-.Inf]', { a: [Number.NEGATIVE_INFINITY] })).toBe('json: unsupported value: -Inf');
    expect(nonFiniteNumberError('a: .nan', { a: Number.NaN })).toBe('json: unsupported value: NaN');
  });

  it('makes a body with one a 400 (it can never be a canonical text: JSON.stringify writes null)', () => {
    try {
      parseJsonDetectingDuplicates('{"metadata":{"name":"a","generation":1e400}}');
      throw new Error('expected a 400');
    } catch (err) {
      expect(err).toBeInstanceOf(StatusError);
      expect((err as StatusError).code).toBe(400);
      expect((err as StatusError).message).toBe('json: cannot unmarshal number 1e400 into Go value of type float64');
    }
  });
});
