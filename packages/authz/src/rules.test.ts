import { describe, expect, it } from 'vitest';
import { AlwaysAllowAuthorizer } from './always-allow.ts';
import { AlwaysDenyAuthorizer } from './always-deny.ts';
import type { Authorizer, RulesResult } from './authorizer.ts';
import { RULES_NOT_SUPPORTED, rulesOf } from './rules.ts';
import { unionAuthorizer } from './union.ts';

const bob = { name: 'bob', groups: ['system:authenticated'] };
const noRules: Authorizer = { authorize: async () => ({ decision: 'NoOpinion', reason: '' }) };
const fixed = (r: RulesResult): Authorizer => ({ authorize: async () => ({ decision: 'NoOpinion', reason: '' }), rulesFor: async () => r });

describe('rulesFor', () => {
  it('AlwaysAllow answers every verb on everything, as kube', async () => {
    expect(await new AlwaysAllowAuthorizer().rulesFor(bob, 'default')).toEqual({
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
  });

  it('AlwaysDeny answers no rules, complete', async () => {
    expect(await new AlwaysDenyAuthorizer().rulesFor(bob, 'default')).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
    });
  });

  it('rulesOf reports an authorizer without rulesFor (or one that throws) as incomplete with an error', async () => {
    const r = await rulesOf(noRules, bob, 'default');
    expect(r).toMatchObject({ resourceRules: [], nonResourceRules: [], incomplete: true });
    expect(r.error?.message).toBe(RULES_NOT_SUPPORTED);
    const thrown = await rulesOf({ ...noRules, rulesFor: async () => Promise.reject(new Error('boom')) }, bob, 'default');
    expect(thrown).toMatchObject({ incomplete: true, resourceRules: [] });
    expect(thrown.error?.message).toBe('boom');
  });

  it('the union concatenates rules, is incomplete when any part is, and aggregates errors', async () => {
    const reader = fixed({
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
    });
    const union = unionAuthorizer(reader, new AlwaysDenyAuthorizer(), new AlwaysAllowAuthorizer());
    expect(await union.rulesFor?.(bob, 'default')).toEqual({
      resourceRules: [
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] },
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      ],
      nonResourceRules: [
        { verbs: ['get'], nonResourceURLs: ['/healthz'] },
        { verbs: ['*'], nonResourceURLs: ['*'] },
      ],
      incomplete: false,
    });
    const partial = await unionAuthorizer(
      reader,
      noRules,
      fixed({ resourceRules: [], nonResourceRules: [], incomplete: false, error: new Error('x') }),
    ).rulesFor?.(bob, 'default');
    expect(partial?.incomplete).toBe(true);
    expect(partial?.resourceRules).toHaveLength(1);
    expect(partial?.error?.message).toBe(`[${RULES_NOT_SUPPORTED}, x]`);
  });
});
