import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes } from './authorizer.ts';
import { forbiddenMessage } from './forbidden-message.ts';

const base: AuthorizationAttributes = {
  user: { name: 'bob', groups: ['dev'] },
  verb: 'get',
  resourceRequest: true,
  namespace: 'default',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'configmaps',
  subresource: '',
  name: 'x',
  path: '/api/v1/namespaces/default/configmaps/x',
};

describe('forbiddenMessage', () => {
  it('resource requests, namespaced and cluster-scoped, with subresources, as kube words them', () => {
    expect(forbiddenMessage(base)).toBe('User "bob" cannot get resource "configmaps" in API group "" in the namespace "default"');
    expect(forbiddenMessage({ ...base, verb: 'update', resource: 'pods', subresource: 'status' })).toBe(
      'User "bob" cannot update resource "pods/status" in API group "" in the namespace "default"',
    );
    expect(forbiddenMessage({ ...base, namespace: '', apiGroup: 'apps', resource: 'deployments', verb: 'list' })).toBe(
      'User "bob" cannot list resource "deployments" in API group "apps" at the cluster scope',
    );
  });

  it('non-resource paths', () => {
    expect(forbiddenMessage({ ...base, resourceRequest: false, path: '/healthz', resource: '', namespace: '' })).toBe(
      'User "bob" cannot get path "/healthz"',
    );
  });

  it('appends the reason after ": " (unquoted) and sanitizes HTML-looking text in the message only', () => {
    expect(forbiddenMessage(base, 'RBAC: <none>')).toBe(
      'User "bob" cannot get resource "configmaps" in API group "" in the namespace "default": RBAC: <none>',
    );
    expect(forbiddenMessage({ ...base, user: { name: '<b>&', groups: [] } })).toBe(
      'User "&lt;b&gt;&amp;" cannot get resource "configmaps" in API group "" in the namespace "default"',
    );
  });
});
