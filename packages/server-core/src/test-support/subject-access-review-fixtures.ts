import type { AuthorizationAttributes, Authorizer } from '@kapi/authz';

/** A review of whether carol (with groups, extra and uid) may get configmap x in "dev": `recordingPolicy` allows it. */
export const CAROL_READS_DEV = {
  resourceAttributes: { namespace: 'dev', verb: 'get', resource: 'configmaps', name: 'x' },
  user: 'carol',
  groups: ['team-a'],
  extra: { scopes: ['view', 'edit'] },
  uid: 'c-1',
};

/** Records what it is asked; admin may do anything, carol may get configmaps in "dev", "evil" is denied, "boom" throws. */
export function recordingPolicy(): { authorizer: Authorizer; asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  return {
    asked,
    authorizer: {
      async authorize(a) {
        asked.push(a);
        if (a.user.groups.includes('system:masters')) return { decision: 'Allow', reason: 'admin' };
        if (a.resource === 'boom') throw new Error('policy engine down');
        if (a.resource === 'evil') return { decision: 'Deny', reason: 'never' };
        if (a.user.name === 'carol' && a.verb === 'get' && a.resource === 'configmaps' && a.namespace === 'dev')
          return { decision: 'Allow', reason: 'carol reads dev' };
        return { decision: 'NoOpinion', reason: '' };
      },
    },
  };
}
