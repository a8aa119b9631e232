import type { ResourceDefinition, ResourceVersion } from '@kapi/registry';
import { compareKubeAwareVersions } from '../discovery/version-priority.ts';

/**
 * The Warning a request to a deprecated version gets (kube's crdHandler adds it to every request of that version): the
 * version's own deprecationWarning, else kube's default, `<group>/<version> <Kind> is deprecated`, naming the newest
 * served version that is not deprecated and newer than it (`; use <group>/<v> <Kind>`) when there is one.
 */
export function deprecationWarning(def: ResourceDefinition, version: ResourceVersion): string {
  if (version.deprecationWarning !== undefined) return version.deprecationWarning;
  const prefix = def.group ? `${def.group}/` : '';
  const message = `${prefix}${version.name} ${def.kind} is deprecated`;
  const newer = def.versions
    .filter((v) => v.served && !v.deprecated && compareKubeAwareVersions(version.name, v.name) < 0)
    .map((v) => v.name)
    .sort((a, b) => compareKubeAwareVersions(b, a));
  return newer[0] ? `${message}; use ${prefix}${newer[0]} ${def.kind}` : message;
}
