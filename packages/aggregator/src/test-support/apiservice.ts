import type { Json } from './chain.ts';

/**
 * A remote APIService `<version>.<group>` naming the Service `service` (groupPriorityMinimum 1000, versionPriority 15,
 * as sample-apiserver registers); `spec` adds to it or overrides.
 */
export function remoteAPIService(
  group: string,
  version: string,
  service: { namespace: string; name: string; port?: number },
  spec: Json = {},
): Json {
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${version}.${group}` },
    spec: { group, version, service, groupPriorityMinimum: 1000, versionPriority: 15, ...spec },
  };
}
