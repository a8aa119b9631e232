import { goFloat, type JsonRendering, renderJson } from '@kapi/apimachinery';

/**
 * Go's `%v` rendering of a decoded JSON value (map[string]interface{}, []interface{}, float64, …). kube's
 * strategic-merge-patch errors print the offending item this way ("map: map[image:nginx] does not contain …"),
 * and clients match on those texts.
 */
export function goFormat(v: unknown): string {
  return renderJson(v, GO_V);
}

// An explicit stack (renderJson): a patch item may nest as deep as the decoder allows.
// strategic merge decodes with plain json.Unmarshal, so every number is a float64 (1000000 prints 1e+06): goFloat, not goNumber.
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
