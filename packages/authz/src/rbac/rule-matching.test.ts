import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes } from '../authorizer.ts';
import { nonResourceURLMatches, resourceMatches, ruleAllows, rulesAllow } from './rule-matching.ts';
import type { PolicyRule } from './types.ts';

const user = { name: 'bob', groups: [] };

function req(over: Partial<AuthorizationAttributes>): AuthorizationAttributes {
  return {
    user,
    verb: 'get',
    resourceRequest: true,
    namespace: 'default',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    name: 'p1',
    path: '/api/v1/namespaces/default/pods/p1',
    ...over,
  };
}

const path = (p: string, verb = 'get'): AuthorizationAttributes => req({ resourceRequest: false, path: p, verb, resource: '', name: '' });

describe('ruleAllows (kube RuleAllows)', () => {
  const pods: PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };

  it('matches verb, group and resource exactly', () => {
    expect(ruleAllows(req({}), pods)).toBe(true);
    expect(ruleAllows(req({ verb: 'delete' }), pods)).toBe(false);
    expect(ruleAllows(req({ apiGroup: 'apps' }), pods)).toBe(false);
    expect(ruleAllows(req({ resource: 'services' }), pods)).toBe(false);
  });

  it('takes * for any verb, group or resource', () => {
    expect(ruleAllows(req({ verb: 'deletecollection' }), { ...pods, verbs: ['*'] })).toBe(true);
    expect(ruleAllows(req({ apiGroup: 'apps', resource: 'deployments' }), { verbs: ['get'], apiGroups: ['*'], resources: ['*'] })).toBe(
      true,
    );
    expect(ruleAllows(req({ apiGroup: 'apps' }), { verbs: ['get'], apiGroups: ['apps'], resources: ['*'] })).toBe(true);
  });

  it('a rule without apiGroups or resources matches no resource request', () => {
    expect(ruleAllows(req({}), { verbs: ['*'], resources: ['*'] })).toBe(false);
    expect(ruleAllows(req({}), { verbs: ['*'], apiGroups: ['*'] })).toBe(false);
  });

  it('a subresource needs resource/subresource or */subresource; the bare resource does not cover it', () => {
    const status = req({ resource: 'pods', subresource: 'status', verb: 'update' });
    expect(ruleAllows(status, { verbs: ['update'], apiGroups: [''], resources: ['pods'] })).toBe(false);
    expect(ruleAllows(status, { verbs: ['update'], apiGroups: [''], resources: ['pods/status'] })).toBe(true);
    expect(ruleAllows(status, { verbs: ['update'], apiGroups: [''], resources: ['*/status'] })).toBe(true);
    expect(ruleAllows(status, { verbs: ['update'], apiGroups: [''], resources: ['*/scale'] })).toBe(false);
    expect(ruleAllows(status, { verbs: ['update'], apiGroups: [''], resources: ['*'] })).toBe(true);
    // `*/status` names a subresource only: the resource itself is not matched.
    expect(ruleAllows(req({ resource: 'status' }), { verbs: ['get'], apiGroups: [''], resources: ['*/status'] })).toBe(false);
    expect(resourceMatches({ verbs: [], resources: ['*/xstatus'] }, 'pods/status', 'status')).toBe(false);
  });

  it('resourceNames: empty means any name; a request without a name never matches a rule that lists names', () => {
    const named: PolicyRule = { verbs: ['get', 'list', 'create'], apiGroups: [''], resources: ['pods'], resourceNames: ['p1'] };
    expect(ruleAllows(req({ name: 'p1' }), named)).toBe(true);
    expect(ruleAllows(req({ name: 'p2' }), named)).toBe(false);
    expect(ruleAllows(req({ verb: 'list', name: '' }), named)).toBe(false);
    expect(ruleAllows(req({ verb: 'create', name: '' }), named)).toBe(false);
    expect(ruleAllows(req({ verb: 'list', name: '' }), { ...named, resourceNames: [] })).toBe(true);
  });

  it('nonResourceURLs: exact, *, and a trailing * as a prefix', () => {
    expect(ruleAllows(path('/healthz'), { verbs: ['get'], nonResourceURLs: ['/healthz'] })).toBe(true);
    expect(ruleAllows(path('/healthz/etcd'), { verbs: ['get'], nonResourceURLs: ['/healthz'] })).toBe(false);
    expect(ruleAllows(path('/healthz/etcd'), { verbs: ['get'], nonResourceURLs: ['/healthz/*'] })).toBe(true);
    expect(ruleAllows(path('/healthz'), { verbs: ['get'], nonResourceURLs: ['/healthz/*'] })).toBe(false);
    expect(ruleAllows(path('/healthzz'), { verbs: ['get'], nonResourceURLs: ['/healthz*'] })).toBe(true);
    expect(ruleAllows(path('/anything'), { verbs: ['get'], nonResourceURLs: ['*'] })).toBe(true);
    expect(ruleAllows(path('/version', 'post'), { verbs: ['get'], nonResourceURLs: ['*'] })).toBe(false);
    expect(nonResourceURLMatches({ verbs: [], nonResourceURLs: ['/api**'] }, '/apis')).toBe(true);
  });

  it('resource rules never match a non-resource request, nor URL rules a resource request', () => {
    expect(ruleAllows(path('/api'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] })).toBe(false);
    expect(ruleAllows(req({}), { verbs: ['*'], nonResourceURLs: ['*'] })).toBe(false);
  });

  it('rulesAllow: any rule', () => {
    expect(
      rulesAllow(req({}), [
        { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      ]),
    ).toBe(true);
    expect(rulesAllow(req({}), [])).toBe(false);
  });
});
