import { describe, expect, it } from 'vitest';
import { AlwaysAllowAuthorizer } from './always-allow.ts';
import { AlwaysDenyAuthorizer } from './always-deny.ts';
import type { AuthorizationAttributes } from './authorizer.ts';

const attrs: AuthorizationAttributes = {
  user: { name: 'bob', groups: [] },
  verb: 'get',
  resourceRequest: true,
  namespace: 'default',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  name: 'p',
  path: '/api/v1/namespaces/default/pods/p',
};

describe('AlwaysAllowAuthorizer', () => {
  it('allow says Allow with no reason; deny says NoOpinion with kube’s reason', async () => {
    expect(await new AlwaysAllowAuthorizer().authorize(attrs)).toEqual({ decision: 'Allow', reason: '' });
    expect(await new AlwaysDenyAuthorizer().authorize(attrs)).toEqual({ decision: 'NoOpinion', reason: 'Everything is forbidden.' });
  });
});
