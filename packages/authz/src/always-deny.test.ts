import { describe, expect, it } from 'vitest';
import { AlwaysAllowAuthorizer } from './always-allow.ts';
import { AlwaysDenyAuthorizer } from './always-deny.ts';
import { unionAuthorizer } from './union.ts';

const attrs = {
  user: { name: 'bob', groups: [] },
  verb: 'get',
  resourceRequest: false,
  namespace: '',
  apiGroup: '',
  apiVersion: '',
  resource: '',
  subresource: '',
  name: '',
  path: '/healthz',
};

describe('AlwaysDenyAuthorizer', () => {
  it('is NoOpinion, so a later authorizer in a union can still allow', async () => {
    expect(await unionAuthorizer(new AlwaysDenyAuthorizer(), new AlwaysAllowAuthorizer()).authorize(attrs)).toEqual({
      decision: 'Allow',
      reason: '',
    });
  });
});
