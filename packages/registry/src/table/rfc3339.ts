/**
 * Reading metav1.Time from a query-parameter-style string, as `date` printer columns do: Go's
 * time.Parse(time.RFC3339, …), which also takes fractional seconds. Own arithmetic rather than Date.UTC, which
 * maps years 0-99 to 1900-1999 and would misplace Go's zero time (year 1).
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(\.\d+)?(?:Z|([+-])(\d{2}):(\d{2}))$/;
const DAY_MS = 86_400_000;

/** Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

/** Milliseconds since the epoch, or undefined when `s` is not an RFC 3339 timestamp Go would accept. */
export function parseRFC3339(s: string): number | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (m[8]) {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) return undefined;
    offset = (m[8] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  // Milliseconds are enough: ages print in whole seconds at most.
  const fraction = m[7] ? Number(`${m[7].slice(1)}00`.slice(0, 3)) : 0;
  return daysFromCivil(year, month, day) * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000 + fraction - offset;
}

/** Go's zero time.Time, 0001-01-01T00:00:00Z: what an empty metav1.Time holds. */
export const GO_ZERO_TIME_MS = daysFromCivil(1, 1, 1) * DAY_MS;
