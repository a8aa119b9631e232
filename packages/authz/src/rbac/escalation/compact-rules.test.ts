import { describe, expect, it } from 'vitest';
import { compactRules, compactString } from './compact-rules.ts';

describe('compactString (kube CompactString)', () => {
  it('prints the set fields in kube order with Go %q lists', () => {
    expect(compactString({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] })).toBe(
      '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
    );
    expect(compactString({ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] })).toBe(
      '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["get"]}',
    );
    expect(compactString({ verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] })).toBe(
      '{NonResourceURLs:["/healthz" "/api/*"], Verbs:["get"]}',
    );
    expect(compactString({ verbs: [] })).toBe('{}');
  });

  it('escapes as Go does', () => {
    expect(compactString({ verbs: ['g"et\n'] })).toBe('{Verbs:["g\\"et\\n"]}');
  });
});

describe('compactRules (kube CompactRules)', () => {
  it('merges rules of one group and resource (and at most one name) that differ only by verb', () => {
    const got = compactRules([
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      { verbs: ['delete'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] },
      { verbs: ['get'], nonResourceURLs: ['/x'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods', 'services'] },
    ]);
    expect(got.map(compactString).sort()).toEqual(
      [
        '{NonResourceURLs:["/x"], Verbs:["get"]}',
        '{APIGroups:[""], Resources:["pods" "services"], Verbs:["get"]}',
        '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
        '{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get" "delete"]}',
        '{APIGroups:["apps"], Resources:["pods"], Verbs:["get"]}',
      ].sort(),
    );
  });

  it('leaves its input alone', () => {
    const input = [
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
    ];
    compactRules(input);
    expect(input[0]?.verbs).toEqual(['get']);
  });
});
