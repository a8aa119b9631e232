import { copyJson } from '@kapi/apimachinery';

/**
 * A deep copy of `obj` whose metadata.managedFields is the same list: only the field manager reads the entries (it
 * decodes them, and re-encodes or shares them unchanged, never changing one), and storage copies what it stores — so
 * a patched object's entries stay the stored object's, which storage shares with the next revision.
 */
export function copyKeepingManagedFields<T extends { metadata?: unknown }>(obj: T): T {
  const meta = obj.metadata as Record<string, unknown> | undefined;
  if (meta?.managedFields === undefined) return copyJson(obj);
  const { managedFields, ...metadata } = meta;
  const copy = copyJson({ ...obj, metadata });
  (copy.metadata as Record<string, unknown>).managedFields = managedFields;
  return copy as T;
}
