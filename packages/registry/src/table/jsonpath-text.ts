import { goNumber } from '@kapi/apimachinery';
import { goJSON } from '../go-json.ts';
/**
 * How client-go's jsonpath prints one result (PrintResults), which is what a `string` printer column shows for
 * whatever its path finds: strings as they are, numbers and booleans as Go's fmt prints them, objects and arrays
 * as Go's json.Marshal writes them, and JSON null as text/template's "<no value>".
 */

/** A JSON number as Go's fmt.Fprint prints it: int64 for integers (as decoded), %v (shortest %g) for the rest. */
export const goNumberText: (n: number) => string = goNumber;

/** The text jsonpath prints for one value. */
export function jsonPathText(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return goNumberText(value);
  if (typeof value === 'boolean') return String(value);
  return goJSON(value);
}
