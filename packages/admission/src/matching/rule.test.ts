import { describe, expect, it } from 'vitest';
import type { RuleWithOperations } from '../admissionregistration/types.ts';
import type { Operation } from '../attributes.ts';
import { matchesRule } from './rule.ts';

// Cases after k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules/rules_test.go.

function attrs(
  group: string,
  version: string,
  resource: string,
  subresource = '',
  namespace = 'ns',
  operation: Operation = 'CREATE',
): Parameters<typeof matchesRule>[1] {
  return { operation, resource: { group, version, resource }, subresource, namespace };
}

const all: RuleWithOperations = { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] };

describe('matchesRule', () => {
  it('operations: a listed one or *', () => {
    const r: RuleWithOperations = { ...all, operations: ['CREATE', 'UPDATE'] };
    expect(matchesRule(r, attrs('apps', 'v1', 'deployments', '', 'ns', 'CREATE'))).toBe(true);
    expect(matchesRule(r, attrs('apps', 'v1', 'deployments', '', 'ns', 'UPDATE'))).toBe(true);
    expect(matchesRule(r, attrs('apps', 'v1', 'deployments', '', 'ns', 'DELETE'))).toBe(false);
    expect(matchesRule(r, attrs('apps', 'v1', 'deployments', '', 'ns', 'CONNECT'))).toBe(false);
    expect(matchesRule(all, attrs('apps', 'v1', 'deployments', '', 'ns', 'CONNECT'))).toBe(true);
    expect(matchesRule({ ...all, operations: [] }, attrs('apps', 'v1', 'deployments'))).toBe(false);
  });

  it('groups and versions: exact or *', () => {
    const r: RuleWithOperations = { ...all, apiGroups: ['', 'apps'], apiVersions: ['v1'] };
    expect(matchesRule(r, attrs('', 'v1', 'pods'))).toBe(true);
    expect(matchesRule(r, attrs('apps', 'v1', 'deployments'))).toBe(true);
    expect(matchesRule(r, attrs('batch', 'v1', 'jobs'))).toBe(false);
    expect(matchesRule(r, attrs('apps', 'v1beta1', 'deployments'))).toBe(false);
    expect(matchesRule({ ...all, apiGroups: [] }, attrs('', 'v1', 'pods'))).toBe(false);
  });

  it('resources and subresources', () => {
    const m = (resources: string[], resource: string, sub = ''): boolean =>
      matchesRule({ ...all, resources }, attrs('', 'v1', resource, sub));
    // '*' and a bare resource never match a subresource
    expect(m(['*'], 'pods')).toBe(true);
    expect(m(['*'], 'pods', 'status')).toBe(false);
    expect(m(['pods'], 'pods')).toBe(true);
    expect(m(['pods'], 'pods', 'status')).toBe(false);
    expect(m(['pods'], 'services')).toBe(false);
    // '*/*' matches everything, with or without subresource
    expect(m(['*/*'], 'pods')).toBe(true);
    expect(m(['*/*'], 'pods', 'status')).toBe(true);
    // 'r/*': the resource and all its subresources
    expect(m(['pods/*'], 'pods')).toBe(true);
    expect(m(['pods/*'], 'pods', 'exec')).toBe(true);
    expect(m(['pods/*'], 'services', 'status')).toBe(false);
    // '*/s': that subresource of every resource
    expect(m(['*/status'], 'pods', 'status')).toBe(true);
    expect(m(['*/status'], 'deployments', 'status')).toBe(true);
    expect(m(['*/status'], 'pods')).toBe(false);
    expect(m(['*/status'], 'pods', 'exec')).toBe(false);
    // 'r/s'
    expect(m(['pods/status'], 'pods', 'status')).toBe(true);
    expect(m(['pods/status'], 'pods')).toBe(false);
    expect(m(['pods/status', 'deployments/scale'], 'deployments', 'scale')).toBe(true);
    expect(m([], 'pods')).toBe(false);
  });

  it('scope: namespaced, cluster, and namespaces as cluster-scoped', () => {
    const namespaced: RuleWithOperations = { ...all, scope: 'Namespaced' };
    const cluster: RuleWithOperations = { ...all, scope: 'Cluster' };
    const any: RuleWithOperations = { ...all, scope: '*' };
    expect(matchesRule(namespaced, attrs('', 'v1', 'pods', '', 'ns'))).toBe(true);
    expect(matchesRule(namespaced, attrs('', 'v1', 'nodes', '', ''))).toBe(false);
    expect(matchesRule(cluster, attrs('', 'v1', 'nodes', '', ''))).toBe(true);
    expect(matchesRule(cluster, attrs('', 'v1', 'pods', '', 'ns'))).toBe(false);
    // A Namespace request carries the namespace's name as its namespace but is cluster-scoped.
    expect(matchesRule(namespaced, attrs('', 'v1', 'namespaces', '', 'ns'))).toBe(false);
    expect(matchesRule(cluster, attrs('', 'v1', 'namespaces', '', 'ns'))).toBe(true);
    expect(matchesRule({ ...cluster, resources: ['*/*'] }, attrs('', 'v1', 'namespaces', 'finalize', 'ns'))).toBe(true);
    // only core/v1 namespaces is the Namespace kind
    expect(matchesRule(cluster, attrs('example.com', 'v1', 'namespaces', '', 'ns'))).toBe(false);
    expect(matchesRule(any, attrs('', 'v1', 'pods', '', 'ns'))).toBe(true);
    expect(matchesRule(any, attrs('', 'v1', 'nodes', '', ''))).toBe(true);
    expect(matchesRule(all, attrs('', 'v1', 'nodes', '', ''))).toBe(true);
    expect(matchesRule({ ...all, scope: 'Bogus' as never }, attrs('', 'v1', 'pods'))).toBe(false);
  });
});
