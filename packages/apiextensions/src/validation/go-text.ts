/**
 * How Go prints the values that appear inside kube-openapi's messages, so the text matches kube-apiserver's:
 * `%v` of an int64 or float64, `%q` of a string, json.Marshal of a decoded JSON value.
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

/** `%v` of a number as Go holds it (int64 prints its digits, float64 as goFloat). */
export function goNumber(n: number): string {
  return isInt64(n) ? BigInt(n).toString() : goFloat(n);
}

/** strconv.Quote: Go's escapes (\x00-style for control bytes, \u for other non-printables). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c === 7) out += '\\a';
    else if (c === 8) out += '\\b';
    else if (c === 12) out += '\\f';
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c === 11) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if ((c >= 0x80 && c < 0xa0) || c === 0xad || c === 0xfeff || (c >= 0x2028 && c <= 0x2029))
      out += c > 0xffff ? `\\U${c.toString(16).padStart(8, '0')}` : `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** json.Marshal of a decoded JSON value: object keys sorted, <, > and & escaped, numbers as Go writes them. */
export function goJSON(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string')
    return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (typeof v === 'number') return isInt64(v) ? BigInt(v).toString() : goJSONFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goJSON).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${goJSON(k)}:${goJSON(o[k])}`)
    .join(',')}}`;
}

/** encoding/json's float64: %f-like below 1e21, exponent form (e-07, e+21) outside [1e-6, 1e21). */
function goJSONFloat(f: number): string {
  const abs = Math.abs(f);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    // Go writes a two-digit exponent without a leading zero beyond that (1e-07, 1e+21).
    return f.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return String(f);
}
