import { compareTyped, type FieldSet, type KubeObject, type TypedSchema, toFieldSet } from '@kapi/apimachinery';
import { goJSON } from '../go-json.ts';

/** kubectl's client-side apply annotation. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The manager whose server-side applies take over client-side apply (kube upgrades only kubectl's). */
export const KUBECTL_MANAGER = 'kubectl';

function lastAppliedOf(obj: KubeObject | null | undefined): string | undefined {
  const v = obj?.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/**
 * kube's lastAppliedManager: the fields a kubectl server-side apply may take from other managers without force
 * because client-side apply set them — the last-applied configuration's fields whose values the live object still
 * has. Undefined without a usable annotation (none, not JSON, or of another apiVersion).
 */
export function allowedConflictsFromLastApplied(live: KubeObject | null, typed: TypedSchema, apiVersion: string): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (!text || !live) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (last === null || typeof last !== 'object' || (last as { apiVersion?: unknown }).apiVersion !== apiVersion) return undefined;
  try {
    const c = compareTyped(typed, last, live);
    return toFieldSet(typed, last).difference(c.modified).difference(c.added).difference(c.removed);
  } catch {
    return undefined;
  }
}

/**
 * kube's lastAppliedUpdater: after a kubectl server-side apply, an object that still has a last-applied annotation
 * gets it rewritten from the applied configuration (without that annotation), as Go's JSON encoder writes it (keys
 * sorted, a final newline), so a later client-side apply starts from what was applied. `obj` is the apply's result, changed in place.
 */
export function syncLastApplied(obj: KubeObject, applied: Record<string, unknown>): void {
  if (!lastAppliedOf(obj)) return;
  const config = structuredClone(applied);
  const meta = config.metadata;
  if (meta !== null && typeof meta === 'object' && !Array.isArray(meta)) {
    const annotations = (meta as Record<string, unknown>).annotations;
    if (annotations !== null && typeof annotations === 'object') delete (annotations as Record<string, unknown>)[LAST_APPLIED_ANNOTATION];
  }
  obj.metadata = { ...obj.metadata, annotations: { ...obj.metadata.annotations, [LAST_APPLIED_ANNOTATION]: `${goJSON(config)}\n` } };
}
