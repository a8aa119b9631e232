/** The last second formatted: every write stamps times, and most writes in a second share one. */
let lastSecond = Number.NaN;
let lastText = '';

/** metav1.Time on the wire: RFC 3339 in UTC with whole seconds (`2026-01-01T00:00:00Z`). */
export function rfc3339Seconds(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s !== lastSecond) {
    lastText = `${new Date(s * 1000).toISOString().slice(0, 19)}Z`;
    lastSecond = s;
  }
  return lastText;
}
