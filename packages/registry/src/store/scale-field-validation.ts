import { goJSON } from '../go-json.ts';
import { goFormat } from '../strategic-merge/go-format.ts';
import { findUnknownMetadataFields, unknownFieldMessage } from '../unknown-fields.ts';
import { patchStrictError } from './patch-strict-error.ts';
import type { FieldValidation, PatchType } from './types.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What autoscaling/v1 Scale declares besides TypeMeta and ObjectMeta (a Map: a body's keys include `__proto__`). */
const SCALE_FIELDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['spec', new Set(['replicas'])],
  ['status', new Set(['replicas', 'selector'])],
]);

/** The paths of the fields of `scale` that autoscaling/v1 Scale does not declare, in document order. */
function undeclaredScaleFields(scale: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const key of Object.keys(scale)) {
    const v = scale[key];
    if (key === 'apiVersion' || key === 'kind') continue;
    if (key === 'metadata') {
      if (isRecord(v)) out.push(...findUnknownMetadataFields(v));
      continue;
    }
    const declared = SCALE_FIELDS.get(key);
    if (!declared) out.push(key);
    else if (isRecord(v)) for (const k of Object.keys(v)) if (!declared.has(k)) out.push(`${key}.${k}`);
  }
  return out;
}

/** How a json, merge or strategic patch of a Scale is held to fieldValidation (ScaleUpdateOptions' part of it). */
export interface ScalePatchValidation {
  fieldValidation?: FieldValidation;
  /** What strict decoding of the patch document itself found, worded (the Store's documentStrictErrors). */
  documentStrictErrors?: readonly string[];
  /** Told each warning of fieldValidation Warn. */
  warn?: (text: string) => void;
}

/**
 * fieldValidation of the Scale a json, merge or strategic patch made, as kube's patchers decode it into the Go type:
 * the patch document's own strict errors and the Scale's undeclared fields are refused with Strict (422 Invalid
 * `patch`, showing the patched Scale as Go's json.Marshal writes it, or a strategic patch as Go's %v), told to `warn`
 * one by one with Warn (the default), or ignored.
 */
export function checkScalePatchFields(scale: unknown, patch: unknown, type: PatchType, opts: ScalePatchValidation): void {
  const directive = opts.fieldValidation ?? 'Warn';
  if (directive === 'Ignore' || !isRecord(scale)) return;
  const messages = [...(opts.documentStrictErrors ?? []), ...undeclaredScaleFields(scale).map(unknownFieldMessage)];
  if (messages.length === 0) return;
  if (directive === 'Strict') {
    throw patchStrictError(type === 'strategic' ? goFormat(patch) : goJSON(scale), messages);
  }
  for (const m of messages) opts.warn?.(m);
}
