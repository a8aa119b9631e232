/**
 * kube's utilerrors.NewAggregate, for the unions: no errors → null; one error → that error itself;
 * more → an AggregateError whose message is kube's: the distinct messages, comma-separated, in brackets.
 */
export function aggregateErrors(errors: readonly unknown[]): Error | null {
  if (errors.length === 0) return null;
  const errs = errors.map((e) => (e instanceof Error ? e : new Error(String(e))));
  if (errs.length === 1) return errs[0] as Error;
  return new AggregateError(errs, aggregateMessage(errs));
}

/** `[a, b]` with duplicates dropped; a single distinct message is returned bare, as kube's aggregate.Error(). */
export function aggregateMessage(errors: readonly Error[]): string {
  const seen = [...new Set(errors.map((e) => e.message))];
  return seen.length === 1 ? (seen[0] as string) : `[${seen.join(', ')}]`;
}
