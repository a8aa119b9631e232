import { goNumber, type JsonRendering, renderJson } from '@kapi/apimachinery';
/**
 * How client-go's jsonpath prints one result (PrintResults), which is what a `string` printer column shows for
 * whatever its path finds: strings as they are, numbers and booleans as Go's fmt prints them, objects and arrays
 * as Go's json.Marshal writes them, and JSON null as text/template's "<no value>".
 */

/** A JSON number as Go's fmt.Fprint prints it: int64 for integers (as decoded), %v (shortest %g) for the rest. */
export const goNumberText: (n: number) => string = goNumber;

// An explicit stack (renderJson): a column may print a value nested as deep as the decoder allows.
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

/** The text jsonpath prints for one value. */
export function jsonPathText(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return goNumberText(value);
  if (typeof value === 'boolean') return String(value);
  return goJSON(value);
}
