import type { AuthorizationAttributes } from '@kapi/authz';
import { describe, expect, it } from 'vitest';
import { pathAuthorizer } from './path-authorizer.ts';

const nonResource = (path: string): AuthorizationAttributes => ({
  user: { name: 'system:anonymous', groups: [] },
  verb: 'get',
  resourceRequest: false,
  namespace: '',
  apiGroup: '',
  apiVersion: '',
  resource: '',
  subresource: '',
  name: '',
  path,
});

describe('pathAuthorizer (kube authorization/path)', () => {
  const authz = pathAuthorizer(['/healthz', 'readyz', '/metrics/*']);

  it('allows the exact paths and prefixes, with or without the leading slash in the configuration', async () => {
    for (const p of ['/healthz', '/readyz', '/metrics/slis', '/metrics/'])
      expect(await authz.authorize(nonResource(p))).toEqual({ decision: 'Allow', reason: '' });
    for (const p of ['/healthz/etcd', '/livez', '/metrics']) expect((await authz.authorize(nonResource(p))).decision).toBe('NoOpinion');
  });

  it('has no opinion on resource requests', async () => {
    expect((await authz.authorize({ ...nonResource('/healthz'), resourceRequest: true })).decision).toBe('NoOpinion');
  });

  it('refuses a * that is not last', () => {
    expect(() => pathAuthorizer(['/a/*/b'])).toThrow('only trailing * allowed in "a/*/b"');
  });
});
