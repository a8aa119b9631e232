import { type JsonRendering, renderJson } from '@kapi/apimachinery';

/**
 * Go's json.Marshal of a decoded JSON value, as kube writes one into a message (a printer column's object, the patched
 * object of a patch it refuses).
 */

// An explicit stack (renderJson): a value may nest as deep as the decoder allows.
const SORTED_JSON: JsonRendering = {
  scalar: (v) => JSON.stringify(v),
  keys: (o) =>
    Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort(),
  key: (k) => `${JSON.stringify(k)}:`,
  item: (v) => v ?? null,
  array: ['[', ',', ']'],
  object: ['{', ',', '}'],
};

function sortedJSON(value: unknown): string {
  return renderJson(value, SORTED_JSON);
}

const HTML_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** Go's json.Marshal of decoded JSON: map keys sorted, <, > and & escaped for HTML. */
export function goJSON(value: unknown): string {
  // These characters only occur inside string literals, so replacing them in the output is safe.
  return sortedJSON(value).replace(/[<>&\u2028\u2029]/g, (c) => HTML_ESCAPES[c] as string);
}
