import type { KubeObject } from '@kapi/apimachinery';
import { StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { MatchAttributes, NamespaceLookup } from './match-attributes.ts';
import { matchesNamespaceSelector, matchesObjectSelector, matchesObjectSelectorOrError } from './selectors.ts';

// After predicates/namespace/matcher_test.go and predicates/object/matcher_test.go.

function obj(name: string, labels?: Record<string, string>, kind = 'ConfigMap'): KubeObject {
  return { apiVersion: 'v1', kind, metadata: { name, ...(labels ? { labels } : {}) } };
}

const namespaces: Record<string, KubeObject> = {
  prod: obj('prod', { env: 'prod' }, 'Namespace'),
  dev: obj('dev', { env: 'dev' }, 'Namespace'),
  bare: obj('bare', undefined, 'Namespace'),
};
const lookup: NamespaceLookup = { getNamespace: (n) => namespaces[n] };

function attrs(over: Partial<MatchAttributes>): MatchAttributes {
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource: '',
    namespace: 'prod',
    name: 'c',
    object: obj('c'),
    oldObject: null,
    ...over,
  };
}

describe('matchesNamespaceSelector', () => {
  const prodOnly = { matchLabels: { env: 'prod' } };

  it('matches the labels of the request namespace', () => {
    expect(matchesNamespaceSelector(prodOnly, attrs({ namespace: 'prod' }), lookup)).toBe(true);
    expect(matchesNamespaceSelector(prodOnly, attrs({ namespace: 'dev' }), lookup)).toBe(false);
    expect(matchesNamespaceSelector(prodOnly, attrs({ namespace: 'bare' }), lookup)).toBe(false);
    const notProd = { matchExpressions: [{ key: 'env', operator: 'NotIn' as const, values: ['prod'] }] };
    expect(matchesNamespaceSelector(notProd, attrs({ namespace: 'bare' }), lookup)).toBe(true);
    expect(matchesNamespaceSelector(notProd, attrs({ namespace: 'prod' }), lookup)).toBe(false);
  });

  it('an empty or absent selector matches every namespace, even an unknown one', () => {
    expect(matchesNamespaceSelector({}, attrs({ namespace: 'nowhere' }), lookup)).toBe(true);
    expect(matchesNamespaceSelector(undefined, attrs({ namespace: 'nowhere' }), lookup)).toBe(true);
  });

  it('cluster-scoped requests other than of namespaces are never exempted', () => {
    const a = attrs({ namespace: '', resource: { group: '', version: 'v1', resource: 'nodes' } });
    expect(matchesNamespaceSelector(prodOnly, a, lookup)).toBe(true);
  });

  it('a Namespace created or updated matches by its own new labels; deleted, by the stored one', () => {
    const nsRes = { group: '', version: 'v1', resource: 'namespaces' };
    const created = attrs({ resource: nsRes, namespace: 'fresh', object: obj('fresh', { env: 'prod' }, 'Namespace') });
    expect(matchesNamespaceSelector(prodOnly, created, lookup)).toBe(true);
    // an update of prod dropping its label: the new labels count
    const updated = attrs({ operation: 'UPDATE', resource: nsRes, namespace: 'prod', object: obj('prod', {}, 'Namespace') });
    expect(matchesNamespaceSelector(prodOnly, updated, lookup)).toBe(false);
    const deleted = attrs({ operation: 'DELETE', resource: nsRes, namespace: 'prod', object: null, oldObject: namespaces.prod });
    expect(matchesNamespaceSelector(prodOnly, deleted, lookup)).toBe(true);
    // a subresource update reads the stored namespace
    const status = attrs({
      operation: 'UPDATE',
      resource: nsRes,
      subresource: 'status',
      namespace: 'dev',
      object: obj('dev', { env: 'prod' }),
    });
    expect(matchesNamespaceSelector(prodOnly, status, lookup)).toBe(false);
  });

  it('an unknown namespace is a 404, returned not thrown', () => {
    const r = matchesNamespaceSelector(prodOnly, attrs({ namespace: 'nowhere' }), lookup);
    expect(r instanceof StatusError && r.status.code).toBe(404);
    expect((r as Error).message).toBe('namespaces "nowhere" not found');
  });

  it('a selector that does not parse is a 500', () => {
    const bad = { matchExpressions: [{ key: 'env', operator: 'Bogus' as never }] };
    const r = matchesNamespaceSelector(bad, attrs({}), lookup);
    expect(r instanceof StatusError && r.status.code).toBe(500);
  });
});

describe('matchesObjectSelector', () => {
  const sel = { matchLabels: { app: 'web' } };
  it('object or old object labels match', () => {
    expect(matchesObjectSelector(sel, attrs({ object: obj('a', { app: 'web' }) }))).toBe(true);
    expect(matchesObjectSelector(sel, attrs({ object: obj('a', { app: 'db' }) }))).toBe(false);
    expect(matchesObjectSelector(sel, attrs({ object: obj('a', {}), oldObject: obj('a', { app: 'web' }) }))).toBe(true);
    expect(matchesObjectSelector(sel, attrs({ object: null, oldObject: obj('a', { app: 'web' }) }))).toBe(true);
    expect(matchesObjectSelector(sel, attrs({ object: null, oldObject: null }))).toBe(false);
  });
  it('an empty selector matches anything, even no object', () => {
    expect(matchesObjectSelector({}, attrs({ object: null }))).toBe(true);
    expect(matchesObjectSelector(undefined, attrs({ object: null }))).toBe(true);
  });
  it('DoesNotExist matches an object without labels', () => {
    const s = { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' as const }] };
    expect(matchesObjectSelector(s, attrs({ object: obj('a') }))).toBe(true);
    expect(matchesObjectSelector(s, attrs({ object: obj('a', { skip: '' }) }))).toBe(false);
  });
  it('a bad selector is a 500', () => {
    const r = matchesObjectSelectorOrError({ matchLabels: { 'bad key!': 'x' } }, attrs({}));
    expect(r instanceof StatusError && r.status.code).toBe(500);
  });
});
