/** metav1.Time on the wire: RFC 3339 in UTC with whole seconds (`2026-01-01T00:00:00Z`). */
export function rfc3339Seconds(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}
