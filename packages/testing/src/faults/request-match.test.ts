import type { RequestInfo } from '@kapi/server-core';
import { describe, expect, it } from 'vitest';
import { matchesRequest, WRITE_VERBS } from './request-match.ts';

function info(over: Partial<RequestInfo>): RequestInfo {
  return {
    isResourceRequest: true,
    path: '',
    verb: 'get',
    apiPrefix: 'apis',
    apiGroup: 'apps',
    apiVersion: 'v1',
    namespace: 'ns1',
    resource: 'deployments',
    subresource: '',
    name: 'web',
    parts: [],
    ...over,
  };
}

describe('matchesRequest', () => {
  it('takes every resource request when empty, never a non-resource one', () => {
    expect(matchesRequest(info({}))).toBe(true);
    expect(matchesRequest(info({ isResourceRequest: false, resource: '' }))).toBe(false);
    expect(matchesRequest(undefined)).toBe(false);
  });

  it('matches verbs (one or several), names and namespaces', () => {
    expect(matchesRequest(info({ verb: 'create' }), { verb: 'create' })).toBe(true);
    expect(matchesRequest(info({ verb: 'get' }), { verb: 'create' })).toBe(false);
    expect(matchesRequest(info({ verb: 'patch' }), { verb: ['update', 'patch'] })).toBe(true);
    expect(matchesRequest(info({ verb: 'deletecollection' }), { verb: WRITE_VERBS })).toBe(true);
    expect(matchesRequest(info({ verb: 'list' }), { verb: WRITE_VERBS })).toBe(false);
    expect(matchesRequest(info({}), { name: 'web', namespace: 'ns1' })).toBe(true);
    expect(matchesRequest(info({}), { name: 'db' })).toBe(false);
    expect(matchesRequest(info({}), { namespace: 'ns2' })).toBe(false);
  });

  it('reads a resource as plural (any group), plural.group (that group) and /subresource (as RBAC does)', () => {
    expect(matchesRequest(info({}), { resource: 'deployments' })).toBe(true);
    expect(matchesRequest(info({}), { resource: 'deployments.apps' })).toBe(true);
    expect(matchesRequest(info({}), { resource: 'deployments.extensions' })).toBe(false);
    expect(matchesRequest(info({ apiGroup: '', resource: 'configmaps' }), { resource: 'configmaps' })).toBe(true);
    expect(matchesRequest(info({ subresource: 'status' }), { resource: 'deployments' })).toBe(false);
    expect(matchesRequest(info({ subresource: 'status' }), { resource: 'deployments.apps/status' })).toBe(true);
    expect(matchesRequest(info({}), { resource: 'deployments/status' })).toBe(false);
  });
});
