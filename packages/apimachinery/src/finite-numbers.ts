/**
 * Go's JSON decoder refuses a number its float64 cannot hold (`1e400`: "cannot unmarshal number 1e400 into Go value of
 * type float64"), and YAML's `.inf` and `.nan` cannot become JSON ("json: unsupported value: +Inf"). JSON.parse and
 * the yaml library make them ±Infinity and NaN, which JSON.stringify then writes as null: the object would be stored
 * changed. Decoders refuse them as kube does.
 */

/** Text that may hold such a number: an exponent of three digits or more, 309 digits in a row, or YAML's .inf/.nan. */
const MAY_HOLD = /\d[eE]\+?\d{3}|\d{309}|\.(?:inf|Inf|INF|nan|NaN|NAN)\b/;

/** Why Go could not decode the number in `value` (decoded from `text`) that is not finite; undefined when all are. */
export function nonFiniteNumberError(text: string, value: unknown): string | undefined {
  if (!MAY_HOLD.test(text)) return undefined;
  const found = firstNonFinite(value);
  if (found === undefined) return undefined;
  // A JSON number literal names itself, as Go's error does; YAML's .inf/.nan are named as json.Marshal names them.
  const literal = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
  for (let m = literal.exec(text); m; m = literal.exec(text))
    if (m[0][0] !== '"' && !Number.isFinite(Number(m[0]))) return `json: cannot unmarshal number ${m[0]} into Go value of type float64`;
  return `json: unsupported value: ${Number.isNaN(found) ? 'NaN' : found > 0 ? '+Inf' : '-Inf'}`;
}

/** The first number in `value` that is not finite (an explicit stack: decoded values may nest 10,000 levels). */
function firstNonFinite(value: unknown): number | undefined {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return v;
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === 'object') {
      for (const k in v) if (Object.hasOwn(v, k)) stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return undefined;
}
