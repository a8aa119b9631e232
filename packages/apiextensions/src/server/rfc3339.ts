/** RFC 3339 in whole seconds, as metav1.Time is written (conditions' lastTransitionTime). */
export function rfc3339(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}
