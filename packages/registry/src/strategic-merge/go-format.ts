import { isObject } from './json.ts';

/**
 * Go's `%v` rendering of a decoded JSON value (map[string]interface{}, []interface{}, float64, …). kube's
 * strategic-merge-patch errors print the offending item this way ("map: map[image:nginx] does not contain …"),
 * and clients match on those texts.
 */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (isObject(v)) {
    // fmt prints map keys sorted.
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort();
    return `map[${keys.map((k) => `${k}:${goFormat(v[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return goFloat(v);
  return String(v);
}

/** strconv.FormatFloat(f, 'g', -1, 64): shortest digits, exponent form from 1e+06 and below 1e-04. */
function goFloat(f: number): string {
  if (f === 0 || !Number.isFinite(f)) return f === 0 ? '0' : String(f);
  const [mantissa = '0', expText = '0'] = f.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(f);
}
