/**
 * How Go prints the values that appear inside kube-openapi's messages, so the text matches kube-apiserver's:
 * `%v` of an int64 or float64, `%q` of a string, json.Marshal of a decoded JSON value.
 */

// The number forms live in @kapi/apimachinery (one copy for every package); re-exported for this package's callers.
export { goFloat, goNumber, isInt64 } from '@kapi/apimachinery';

import { isInt64 } from '@kapi/apimachinery';

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
