import { describe, expect, it } from 'vitest';
import type { RuleWithOperations } from '../admissionregistration/types.ts';
import type { MatchAttributes } from './match-attributes.ts';
import { matchNamedRules, matchRules } from './match-rules.ts';

// kube's webhook ShouldCallHook and policy matchesResourceRules, with served versions standing for the
// EquivalentResourceMapper (webhook/generic/webhook_test.go's "equivalent" cases).

function attrs(over: Partial<MatchAttributes> = {}): MatchAttributes {
  return {
    operation: 'CREATE',
    kind: { group: 'example.com', version: 'v2', kind: 'Widget' },
    resource: { group: 'example.com', version: 'v2', resource: 'widgets' },
    subresource: '',
    namespace: 'ns',
    name: 'w1',
    object: null,
    oldObject: null,
    versions: { served: ['v1', 'v2', 'v3'] },
    ...over,
  };
}

const v1Rule: RuleWithOperations = { operations: ['*'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] };

describe('matchRules', () => {
  it('matches the request as it is first', () => {
    const r = matchRules([{ ...v1Rule, apiVersions: ['*'] }], 'Equivalent', attrs());
    expect(r).toEqual({
      resource: { group: 'example.com', version: 'v2', resource: 'widgets' },
      kind: { group: 'example.com', version: 'v2', kind: 'Widget' },
      equivalent: false,
    });
  });

  it('Exact (or no matchPolicy) never tries other versions', () => {
    expect(matchRules([v1Rule], 'Exact', attrs())).toBeUndefined();
    expect(matchRules([v1Rule], undefined, attrs())).toBeUndefined();
  });

  it('Equivalent matches another served version and reports it', () => {
    expect(matchRules([v1Rule], 'Equivalent', attrs())).toEqual({
      resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      equivalent: true,
    });
  });

  it('Equivalent honours earlier rules first, then served version order', () => {
    const v3: RuleWithOperations = { ...v1Rule, apiVersions: ['v3'] };
    expect(matchRules([v3, v1Rule], 'Equivalent', attrs())?.resource.version).toBe('v3');
    const both: RuleWithOperations = { ...v1Rule, apiVersions: ['v3', 'v1'] };
    expect(matchRules([both], 'Equivalent', attrs())?.resource.version).toBe('v1');
  });

  it('Equivalent needs the version to be served and the rest of the rule to match', () => {
    expect(matchRules([v1Rule], 'Equivalent', attrs({ versions: { served: ['v2', 'v3'] } }))).toBeUndefined();
    expect(matchRules([v1Rule], 'Equivalent', attrs({ versions: undefined }))).toBeUndefined();
    expect(matchRules([{ ...v1Rule, operations: ['DELETE'] }], 'Equivalent', attrs())).toBeUndefined();
  });

  it('a subresource with a kind of its own keeps it across versions', () => {
    const scale = attrs({
      subresource: 'scale',
      kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    });
    const r = matchRules([{ ...v1Rule, resources: ['widgets/scale'] }], 'Equivalent', scale);
    expect(r?.resource.version).toBe('v1');
    expect(r?.kind).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
  });

  it('no rules match nothing; webhook rules ignore resourceNames', () => {
    expect(matchRules([], 'Equivalent', attrs())).toBeUndefined();
    expect(matchRules(undefined, 'Equivalent', attrs())).toBeUndefined();
  });
});

describe('matchNamedRules', () => {
  const all: RuleWithOperations = { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] };
  it('resourceNames limit a rule to those names; empty allows all', () => {
    expect(matchNamedRules([{ ...all, resourceNames: ['w1', 'w2'] }], 'Exact', attrs())).toBeDefined();
    expect(matchNamedRules([{ ...all, resourceNames: ['other'] }], 'Exact', attrs())).toBeUndefined();
    expect(matchNamedRules([{ ...all, resourceNames: [] }], 'Exact', attrs())).toBeDefined();
    // a CREATE with generateName has no name yet
    expect(matchNamedRules([{ ...all, resourceNames: ['w1'] }], 'Exact', attrs({ name: '' }))).toBeUndefined();
  });
  it('a later rule can match when an earlier one is limited by name', () => {
    const rules = [
      { ...all, resourceNames: ['other'] },
      { ...all, resourceNames: ['w1'] },
    ];
    expect(matchNamedRules(rules, 'Exact', attrs())).toBeDefined();
  });
  it('Equivalent keeps the name limit', () => {
    expect(matchNamedRules([{ ...v1Rule, resourceNames: ['w1'] }], 'Equivalent', attrs())?.resource.version).toBe('v1');
    expect(matchNamedRules([{ ...v1Rule, resourceNames: ['x'] }], 'Equivalent', attrs())).toBeUndefined();
  });
});
