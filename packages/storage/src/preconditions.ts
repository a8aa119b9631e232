import type { KubeObject } from '@kapi/apimachinery';
import type { Preconditions } from './interfaces.ts';
import { type StorageError, storageErrors } from './storage-error.ts';

/** The Conflict a write gets when `obj` does not meet `pre` (worded as kube-apiserver's Preconditions.Check), if any. */
export function checkPreconditions(key: string, pre: Preconditions | undefined, obj: KubeObject): StorageError | undefined {
  if (!pre) return undefined;
  if (pre.uid !== undefined && pre.uid !== obj.metadata.uid) {
    return storageErrors.conflict(
      key,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid ?? ''}`,
    );
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== obj.metadata.resourceVersion) {
    return storageErrors.conflict(
      key,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion ?? ''}`,
    );
  }
  return undefined;
}
