import { newMethodNotSupported, StatusError } from '@kapi/apimachinery';
import type { WriteCheck } from '@kapi/server-core';

/**
 * What kube's CRD handler answers a create of a kind whose CRD is being deleted: 405 MethodNotAllowed, "create not
 * allowed while custom resource definition is terminating". Instances may still be read, changed and deleted.
 */
export function terminatingCreateCheck(group: string, plural: string, terminating: () => boolean): WriteCheck {
  const resource = { group, resource: plural };
  return {
    resource: `${plural}.${group}`,
    async check(attrs) {
      if (attrs.operation !== 'CREATE' || !terminating()) return;
      const err = newMethodNotSupported(resource, 'create');
      throw new StatusError({ ...err.status, message: 'create not allowed while custom resource definition is terminating' });
    },
  };
}
