import { type JsonRendering, renderJson } from './json-data.ts';

/**
 * How Go's fmt prints the numbers and decoded JSON values that kube puts into its messages (`%v` of an int64 or
 * float64, `%#v` of an interface{}), so our texts match kube-apiserver's. One copy serves fieldpath, typed, the
 * registry's strategic-merge and list-type errors, jsonpath columns and apiextensions' OpenAPI validation.
 */

/** A JSON number as Go's unstructured decoding holds it: int64 when integral and in range, else float64. */
export function isInt64(n: number): boolean {
  return Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63;
}

/** `%v` of a float64: strconv.FormatFloat(f, 'g', -1, 64) with Go's exponent form (1e+06, 1e-05). */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Number.POSITIVE_INFINITY) return '+Inf';
  if (f === Number.NEGATIVE_INFINITY) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // Shortest digits that round-trip, then %g's rule for the shortest precision: exponent form when exp < -4 || exp >= 6.
  const [mantissa, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const abs = Math.abs(exp);
    return `${mantissa}e${sign}${abs < 10 ? `0${abs}` : abs}`;
  }
  const digits = mantissa.replace('-', '').replace('.', '');
  const neg = f < 0 ? '-' : '';
  if (exp < 0) return `${neg}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${neg}${digits}${'0'.repeat(exp + 1 - digits.length)}`;
  return `${neg}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** `%v` of a number as Go holds it after decoding JSON (int64 prints its digits, float64 as goFloat). */
export function goNumber(n: number): string {
  return isInt64(n) ? BigInt(n).toString() : goFloat(n);
}

// An explicit stack (renderJson): a value may nest as deep as the decoder allows.
const GO_SHARP_V: JsonRendering = {
  scalar: (v) => (v === null || v === undefined ? 'interface {}(nil)' : typeof v === 'string' ? JSON.stringify(v) : String(v)),
  keys: (o) => Object.keys(o).sort(),
  key: (k) => `${JSON.stringify(k)}:`,
  array: ['[]interface {}{', ', ', '}'],
  object: ['map[string]interface {}{', ', ', '}'],
};

/** Go's %#v of a value decoded from JSON into interface{} (what kube prints for compound bad values). */
export function goSharpV(v: unknown): string {
  return renderJson(v, GO_SHARP_V);
}
