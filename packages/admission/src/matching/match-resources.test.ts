import { type KubeObject, StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { MatchResources, NamedRuleWithOperations } from '../admissionregistration/types.ts';
import type { MatchAttributes, NamespaceLookup } from './match-attributes.ts';
import { matchesResources } from './match-resources.ts';

// After k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching_test.go.

const namespaces: Record<string, KubeObject> = {
  prod: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod', labels: { env: 'prod' } } },
  dev: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev', labels: { env: 'dev' } } },
};
const lookup: NamespaceLookup = { getNamespace: (n) => namespaces[n] };

function deployment(labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd1', namespace: 'prod', labels } };
}

function attrs(over: Partial<MatchAttributes> = {}): MatchAttributes {
  return {
    operation: 'CREATE',
    kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
    resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    subresource: '',
    namespace: 'prod',
    name: 'd1',
    object: deployment({ app: 'web' }),
    oldObject: null,
    versions: { served: ['v1', 'v1beta1'] },
    ...over,
  };
}

const deployments: NamedRuleWithOperations = {
  operations: ['*'],
  apiGroups: ['apps'],
  apiVersions: ['v1'],
  resources: ['deployments'],
};
const everything: NamedRuleWithOperations = { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] };
const base: MatchResources = { namespaceSelector: {}, objectSelector: {}, matchPolicy: 'Equivalent', resourceRules: [deployments] };

describe('matchesResources', () => {
  it('resourceRules select the resource; the match carries kind and resource', () => {
    expect(matchesResources(base, attrs(), lookup)).toEqual({
      matches: true,
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      equivalent: false,
    });
    const cm = attrs({
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    });
    expect(matchesResources(base, cm, lookup).matches).toBe(false);
  });

  it('no resourceRules match every resource (a binding without them)', () => {
    expect(matchesResources({ namespaceSelector: {}, objectSelector: {} }, attrs(), lookup).matches).toBe(true);
    expect(matchesResources({}, attrs(), lookup).matches).toBe(true);
  });

  it('excludeResourceRules exclude, names included', () => {
    expect(matchesResources({ ...base, excludeResourceRules: [deployments] }, attrs(), lookup).matches).toBe(false);
    expect(matchesResources({ ...base, excludeResourceRules: [{ ...deployments, resourceNames: ['d1'] }] }, attrs(), lookup).matches).toBe(
      false,
    );
    expect(matchesResources({ ...base, excludeResourceRules: [{ ...deployments, resourceNames: ['d2'] }] }, attrs(), lookup).matches).toBe(
      true,
    );
    const exOps: NamedRuleWithOperations = { ...everything, operations: ['DELETE'] };
    expect(matchesResources({ ...base, excludeResourceRules: [exOps] }, attrs(), lookup).matches).toBe(true);
  });

  it('resourceNames limit the match', () => {
    const m = { ...base, resourceRules: [{ ...deployments, resourceNames: ['d2'] }] };
    expect(matchesResources(m, attrs(), lookup).matches).toBe(false);
    expect(matchesResources(m, attrs({ name: 'd2' }), lookup).matches).toBe(true);
  });

  it('namespace and object selectors', () => {
    expect(matchesResources({ ...base, namespaceSelector: { matchLabels: { env: 'prod' } } }, attrs(), lookup).matches).toBe(true);
    expect(matchesResources({ ...base, namespaceSelector: { matchLabels: { env: 'dev' } } }, attrs(), lookup).matches).toBe(false);
    expect(matchesResources({ ...base, objectSelector: { matchLabels: { app: 'web' } } }, attrs(), lookup).matches).toBe(true);
    expect(matchesResources({ ...base, objectSelector: { matchLabels: { app: 'db' } } }, attrs(), lookup).matches).toBe(false);
  });

  it('matchPolicy Equivalent matches another served version; Exact does not', () => {
    const beta = attrs({
      kind: { group: 'apps', version: 'v1beta1', kind: 'Deployment' },
      resource: { group: 'apps', version: 'v1beta1', resource: 'deployments' },
    });
    expect(matchesResources(base, beta, lookup)).toEqual({
      matches: true,
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      equivalent: true,
    });
    expect(matchesResources({ ...base, matchPolicy: 'Exact' }, beta, lookup).matches).toBe(false);
    // the served versions may be given apart from the attributes
    expect(matchesResources(base, { ...beta, versions: undefined }, lookup).matches).toBe(false);
    expect(matchesResources(base, { ...beta, versions: undefined }, lookup, { served: ['v1'] }).matches).toBe(true);
    // Equivalent applies to exclusions too
    expect(matchesResources({ ...base, resourceRules: [everything], excludeResourceRules: [deployments] }, beta, lookup).matches).toBe(
      false,
    );
  });

  it('a missing namespace is an error only when the rules match', () => {
    const m = { ...base, namespaceSelector: { matchLabels: { env: 'prod' } } };
    const r = matchesResources(m, attrs({ namespace: 'gone' }), lookup);
    expect(r.matches).toBe(false);
    expect(r.error instanceof StatusError && r.error.status.code).toBe(404);
    const cm = attrs({ namespace: 'gone', resource: { group: '', version: 'v1', resource: 'configmaps' } });
    expect(matchesResources(m, cm, lookup)).toEqual({ matches: false });
    expect(matchesResources({ ...m, excludeResourceRules: [deployments] }, attrs({ namespace: 'gone' }), lookup)).toEqual({
      matches: false,
    });
  });

  it('a bad object selector is an error only when the rules match', () => {
    const m = { ...base, objectSelector: { matchLabels: { 'bad key!': 'x' } } };
    expect(matchesResources(m, attrs(), lookup).error).toBeInstanceOf(StatusError);
    expect(
      matchesResources({ ...m, resourceRules: [{ ...deployments, operations: ['DELETE' as const] }] }, attrs(), lookup).error,
    ).toBeUndefined();
  });
});
