/** metav1.MicroTime in JSON: RFC 3339 in UTC with exactly six fractional digits (audit events, Lease renewTime). */
export function formatMicroTime(ms: number): string {
  const micros = Math.floor(ms * 1000);
  const seconds = Math.floor(micros / 1_000_000);
  const frac = String(micros - seconds * 1_000_000).padStart(6, '0');
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${frac}Z`;
}
