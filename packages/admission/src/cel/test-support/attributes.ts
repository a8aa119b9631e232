import type { KubeObject } from '@kapi/apimachinery';
import type { AdmissionAttributes } from '../../attributes.ts';

/** Attributes of a request for tests: a CREATE of an apps/v1 Deployment in `default` by `alice` unless changed. */
export function testAttributes(change: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  const object: KubeObject | null =
    change.object === undefined
      ? {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
          spec: { replicas: 3 },
        }
      : change.object;
  return {
    operation: 'CREATE',
    kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
    resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    subresource: '',
    namespace: 'default',
    name: 'web',
    oldObject: null,
    dryRun: false,
    userInfo: { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'] },
    ...change,
    object,
  };
}
