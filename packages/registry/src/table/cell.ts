import type { PrinterColumn } from '../resource-definition.ts';
import { humanDuration } from './human-duration.ts';
import { jsonPathText } from './jsonpath-text.ts';
import { GO_ZERO_TIME_MS, parseRFC3339 } from './rfc3339.ts';
import type { TableCell } from './table-types.ts';

/**
 * A printer column's cell from the first value its path found, as apiextensions' table convertor types it:
 * `string` columns print whatever was found; the others keep only a value of their type (integer truncates a
 * fraction, number widens an integer) and are null otherwise; `date` turns an RFC 3339 string into an age.
 */
export function columnCell(type: PrinterColumn['type'], value: unknown, nowMs: number): TableCell {
  if (type === 'string') return jsonPathText(value);
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? dateCell(value, nowMs) : null;
    default:
      return null;
  }
}

/** metav1.Time.UnmarshalQueryParameter, then ConvertToHumanReadableDateType. */
function dateCell(s: string, nowMs: number): string {
  // "" and "null" decode to the zero time, which has no age.
  if (s === '' || s === 'null') return '<unknown>';
  const t = parseRFC3339(s);
  if (t === undefined) return '<invalid>';
  if (t === GO_ZERO_TIME_MS) return '<unknown>';
  return humanDuration(nowMs - t);
}
