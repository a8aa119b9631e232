import { createHash } from 'node:crypto';

/**
 * k8s.io/apiserver/pkg/endpoints/discovery StorageVersionHash: base64 (standard, padded) of the first 8 bytes of
 * sha256("<group>/<version>/<kind>"); the core group gives "/v1/ConfigMap".
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}
