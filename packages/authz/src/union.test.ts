import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes, Authorizer, Decision } from './authorizer.ts';
import { unionAuthorizer } from './union.ts';

const attrs: AuthorizationAttributes = {
  user: { name: 'bob', groups: [] },
  verb: 'list',
  resourceRequest: true,
  namespace: '',
  apiGroup: 'apps',
  apiVersion: 'v1',
  resource: 'deployments',
  subresource: '',
  name: '',
  path: '/apis/apps/v1/deployments',
};
const says = (decision: Decision, reason = ''): Authorizer => ({ authorize: async () => ({ decision, reason }) });
const throws = (msg: string): Authorizer => ({
  authorize: async () => {
    throw new Error(msg);
  },
});

describe('unionAuthorizer', () => {
  it('the first Allow or Deny wins, with its own reason', async () => {
    expect(await unionAuthorizer(says('NoOpinion', 'rbac: no'), says('Allow', 'webhook: ok'), says('Deny')).authorize(attrs)).toEqual({
      decision: 'Allow',
      reason: 'webhook: ok',
    });
    expect(await unionAuthorizer(says('Deny', 'node: denied'), says('Allow')).authorize(attrs)).toEqual({
      decision: 'Deny',
      reason: 'node: denied',
    });
  });

  it('an Allow after an error still allows (kube checks the decision before the error)', async () => {
    expect((await unionAuthorizer(throws('webhook down'), says('Allow')).authorize(attrs)).decision).toBe('Allow');
  });

  it('NoOpinion all round joins the non-empty reasons with newlines', async () => {
    expect(await unionAuthorizer(says('NoOpinion', 'a'), says('NoOpinion'), says('NoOpinion', 'b')).authorize(attrs)).toEqual({
      decision: 'NoOpinion',
      reason: 'a\nb',
    });
    expect(await unionAuthorizer().authorize(attrs)).toEqual({ decision: 'NoOpinion', reason: '' });
  });

  it('with no decision, errors are thrown, aggregated as kube', async () => {
    await expect(unionAuthorizer(throws('x'), says('NoOpinion', 'r')).authorize(attrs)).rejects.toThrow(/^x$/);
    await expect(unionAuthorizer(throws('x'), throws('y')).authorize(attrs)).rejects.toThrow(/^\[x, y\]$/);
  });
});
