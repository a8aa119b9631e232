import { copyJson, formatGroupVersion, type KubeObject, newBadRequest, parseGroupVersion } from '@kapi/apimachinery';
import type { ResourceDefinition, ResourceVersion } from './resource-definition.ts';

function versionOrThrow(def: ResourceDefinition, name: string): ResourceVersion {
  const v = def.version(name);
  if (!v)
    throw newBadRequest(
      `no kind ${JSON.stringify(def.kind)} is registered for version ${JSON.stringify(formatGroupVersion({ group: def.group, version: name }))}`,
    );
  return v;
}

/**
 * Converts an object of kind `def` to version `toVersion` through the hub (the storage version): the source's
 * toHub, then the target's fromHub. A version without converters has the hub's shape, so only apiVersion
 * changes (a CRD's conversion strategy None). The input is never changed; converters get a copy of their own.
 */
export function convertObject(def: ResourceDefinition, obj: KubeObject, toVersion: string): KubeObject {
  const from = versionOrThrow(def, parseGroupVersion(obj.apiVersion ?? '').version);
  const to = versionOrThrow(def, toVersion);
  const apiVersion = formatGroupVersion({ group: def.group, version: to.name });
  let out = copyJson(obj);
  if (from !== to) {
    const hub = def.storageVersion;
    if (from !== hub && from.toHub) out = from.toHub(out);
    out.apiVersion = formatGroupVersion({ group: def.group, version: hub.name });
    if (to !== hub && to.fromHub) out = to.fromHub(out);
  }
  out.apiVersion = apiVersion;
  out.kind = def.kind;
  return out;
}
