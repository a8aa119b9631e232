import { type JsonRendering, renderJson } from '@kapi/apimachinery';

/**
 * Go's `%v` rendering of a decoded JSON value (map[string]interface{}, []interface{}, float64, …). kube's
 * strategic-merge-patch errors print the offending item this way ("map: map[image:nginx] does not contain …"),
 * and clients match on those texts.
 */
export function goFormat(v: unknown): string {
  return renderJson(v, GO_V);
}

// An explicit stack (renderJson): a patch item may nest as deep as the decoder allows.
const GO_V: JsonRendering = {
  scalar: (v) => (v === null || v === undefined ? '<nil>' : typeof v === 'number' ? goFloat(v) : String(v)),
  // fmt prints map keys sorted.
  keys: (o) =>
    Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort(),
  key: (k) => `${k}:`,
  array: ['[', ' ', ']'],
  object: ['map[', ' ', ']'],
};

/** strconv.FormatFloat(f, 'g', -1, 64): shortest digits, exponent form from 1e+06 and below 1e-04. */
function goFloat(f: number): string {
  if (f === 0 || !Number.isFinite(f)) return f === 0 ? '0' : String(f);
  const [mantissa = '0', expText = '0'] = f.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(f);
}
