import { newBadRequest } from '@kapi/apimachinery';

/** metav1.RFC3339Micro: the one layout a MicroTime is read and written in. */
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';
/** time.RFC3339: the layout a metav1.Time is read in (any fraction of a second is accepted after the seconds). */
export const RFC3339 = '2006-01-02T15:04:05Z07:00';

/** The layout's chunks as Go's time.Parse walks them: each with what it accepts at the head of the value. */
const MICRO_CHUNKS: readonly (readonly [string, RegExp])[] = [
  ['2006', /^\d{4}/],
  ['-', /^-/],
  ['01', /^\d{2}/],
  ['-', /^-/],
  ['02', /^\d{2}/],
  ['T', /^T/],
  // Go's stdHour takes one or two digits; the zero-padded month, day, minute and second take exactly two.
  ['15', /^\d{1,2}/],
  [':', /^:/],
  ['04', /^\d{2}/],
  [':', /^:/],
  ['05', /^\d{2}/],
  // A fixed fraction (.000000) needs exactly that many digits: ".123Z" or none at all is refused.
  ['.000000', /^[.,]\d{6}/],
  ['Z07:00', /^(?:Z|[+-]\d{2}:\d{2})/],
];
// RFC3339's: no fraction in the layout, but Go's parser takes one (of any length) right after the seconds.
const CHUNKS = MICRO_CHUNKS.map(([layout, accepts]) =>
  layout === '.000000' ? (['', /^(?:[.,]\d+)?/] as const) : ([layout, accepts] as const),
);

/** Whether the date and time parts are each in range (what the walk below reports when one is not). */
const inRange = (year: number, month: number, day: number, hour: number, minute: number, second: number): boolean =>
  month >= 1 && month <= 12 && day >= 1 && day <= daysIn(month, year) && hour <= 23 && minute <= 59 && second <= 59;

const daysIn = (month: number, year: number): number =>
  month === 2 ? ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/**
 * Why Go's time.Parse(RFC3339Micro, value) fails, in its words (`parsing time "x" as "…": cannot parse "x" as "2006"`),
 * or undefined when `value` is a MicroTime kube-apiserver reads.
 */
export function microTimeError(value: string): string | undefined {
  return goTimeError(value, RFC3339_MICRO, MICRO_CHUNKS, MICRO_CANONICAL);
}

/** Why Go's time.Parse(RFC3339, value) fails, as metav1.Time's decoding reports it, or undefined when it reads. */
export function timeError(value: string): string | undefined {
  return goTimeError(value, RFC3339, CHUNKS, CANONICAL);
}

/**
 * The times servers and clients write (two-digit hour; a MicroTime's six fraction digits): a subset of what the
 * chunks accept, read in one match. Every write checks the times it carries (managedFields entries), so the common
 * case takes no walk over the chunks; anything else takes the walk, which words Go's error.
 */
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
const MICRO_CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[.,]\d{6}(?:Z|[+-]\d{2}:\d{2})$/;

/** The number the ASCII digits of `s` at [from, to) write (the canonical form puts them at fixed places). */
function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + s.charCodeAt(i) - 48;
  return n;
}

function goTimeError(
  value: string,
  layoutName: string,
  chunks: readonly (readonly [string, RegExp])[],
  canonical: RegExp,
): string | undefined {
  const v = value;
  if (
    canonical.test(v) &&
    inRange(digits(v, 0, 4), digits(v, 5, 7), digits(v, 8, 10), digits(v, 11, 13), digits(v, 14, 16), digits(v, 17, 19))
  )
    return undefined;
  const quoted = JSON.stringify(value);
  let rest = value;
  const parts: string[] = [];
  for (const [layout, accepts] of chunks) {
    const m = accepts.exec(rest);
    if (!m) return `parsing time ${quoted} as "${layoutName}": cannot parse ${JSON.stringify(rest)} as "${layout}"`;
    // The optional fraction is not a date part.
    if (layout !== '') parts.push(m[0]);
    rest = rest.slice(m[0].length);
  }
  if (rest) return `parsing time ${quoted}: extra text: ${JSON.stringify(rest)}`;
  const [year, , month, , day, , hour, , minute, , second] = parts.map(Number) as number[];
  const range = (what: string) => `parsing time ${quoted}: ${what} out of range`;
  if ((month as number) < 1 || (month as number) > 12) return range('month');
  if ((day as number) < 1 || (day as number) > daysIn(month as number, year as number)) return range('day');
  if ((hour as number) > 23) return range('hour');
  if ((minute as number) > 59) return range('minute');
  if ((second as number) > 59) return range('second');
  return undefined;
}

/**
 * Refuses, as kube-apiserver's decoder does (400), a MicroTime field that RFC3339Micro does not read: `times` are the
 * object's MicroTime values by field; undefined and null are unset times.
 */
export function checkMicroTimes(kind: string, version: string, times: readonly unknown[]): void {
  for (const t of times) {
    if (t === undefined || t === null) continue;
    const err = typeof t === 'string' ? microTimeError(t) : 'a MicroTime must be a string';
    if (err) throw newBadRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${err}`);
  }
}

/**
 * The same for metav1.Time fields (RFC 3339, a fraction of a second allowed): kube's decoder refuses others (400).
 * An empty string is left to the validation that requires a time (its 422 says "must be set").
 */
export function checkTimes(kind: string, version: string, times: readonly unknown[]): void {
  for (const t of times) {
    if (t === undefined || t === null || t === '') continue;
    const err = typeof t === 'string' ? timeError(t) : 'a Time must be a string';
    if (err) throw newBadRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${err}`);
  }
}

/**
 * checkTimes for a status' conditions (metav1.Condition and the kinds' own condition types): their lastTransitionTime
 * is a metav1.Time. `conditions` is the status' field as written (anything but a list has no times to check).
 */
export function checkConditionTimes(kind: string, version: string, conditions: unknown): void {
  if (Array.isArray(conditions))
    checkTimes(
      kind,
      version,
      conditions.map((c) => (c as { lastTransitionTime?: unknown } | null)?.lastTransitionTime),
    );
}
