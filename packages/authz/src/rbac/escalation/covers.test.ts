import { describe, expect, it } from 'vitest';
import type { PolicyRule } from '../types.ts';
import { breakdownRule, covers } from './covers.ts';

const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
});
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

describe('breakdownRule', () => {
  it('one rule per group, resource, verb and name, then per URL and verb', () => {
    expect(
      breakdownRule({
        verbs: ['get', 'list'],
        apiGroups: ['', 'apps'],
        resources: ['pods'],
        resourceNames: ['a', 'b'],
        nonResourceURLs: ['/x'],
      }),
    ).toEqual([
      rule(['get'], [''], ['pods'], ['a']),
      rule(['get'], [''], ['pods'], ['b']),
      rule(['list'], [''], ['pods'], ['a']),
      rule(['list'], [''], ['pods'], ['b']),
      rule(['get'], ['apps'], ['pods'], ['a']),
      rule(['get'], ['apps'], ['pods'], ['b']),
      rule(['list'], ['apps'], ['pods'], ['a']),
      rule(['list'], ['apps'], ['pods'], ['b']),
      urls(['get'], ['/x']),
      urls(['list'], ['/x']),
    ]);
  });
});

// The cases of kube's policy_comparator_test.go.
describe('covers (kube Covers)', () => {
  it('exact match', () => {
    expect(covers([rule(['get'], [''], ['builds'])], [rule(['get'], [''], ['builds'])])).toEqual({ covered: true, missing: [] });
  });

  it('a missing verb is reported broken down', () => {
    const got = covers([rule(['get'], [''], ['builds'])], [rule(['get', 'delete'], [''], ['builds'])]);
    expect(got).toEqual({ covered: false, missing: [rule(['delete'], [''], ['builds'])] });
  });

  it('* verb, group and resource cover anything', () => {
    expect(covers([rule(['*'], ['*'], ['*'])], [rule(['get', 'delete'], ['apps', ''], ['deployments', 'pods/log'], ['x'])]).covered).toBe(
      true,
    );
  });

  it('multiple owner rules together cover one servant rule', () => {
    expect(
      covers([rule(['get'], [''], ['builds']), rule(['delete'], [''], ['builds'])], [rule(['get', 'delete'], [''], ['builds'])]).covered,
    ).toBe(true);
  });

  it('a named owner rule covers only those names; an unnamed servant rule needs an unnamed owner rule', () => {
    expect(covers([rule(['get'], [''], ['pods'], ['a', 'b'])], [rule(['get'], [''], ['pods'], ['a'])]).covered).toBe(true);
    expect(covers([rule(['get'], [''], ['pods'], ['a'])], [rule(['get'], [''], ['pods'], ['a', 'c'])]).missing).toEqual([
      rule(['get'], [''], ['pods'], ['c']),
    ]);
    expect(covers([rule(['get'], [''], ['pods'], ['a'])], [rule(['get'], [''], ['pods'])]).covered).toBe(false);
    expect(covers([rule(['get'], [''], ['pods'])], [rule(['get'], [''], ['pods'], ['a'])]).covered).toBe(true);
  });

  it('subresources: exact, */sub, or *; the bare resource does not cover them', () => {
    expect(covers([rule(['get'], [''], ['pods/log'])], [rule(['get'], [''], ['pods/log'])]).covered).toBe(true);
    expect(covers([rule(['get'], [''], ['*/log'])], [rule(['get'], [''], ['pods/log'])]).covered).toBe(true);
    expect(covers([rule(['get'], [''], ['pods'])], [rule(['get'], [''], ['pods/log'])]).covered).toBe(false);
    expect(covers([rule(['get'], [''], ['*/log'])], [rule(['get'], [''], ['pods'])]).covered).toBe(false);
    expect(covers([rule(['get'], [''], ['pods/*'])], [rule(['get'], [''], ['pods/log'])]).covered).toBe(false);
  });

  it('the group must match', () => {
    expect(covers([rule(['get'], ['apps'], ['deployments'])], [rule(['get'], ['extensions'], ['deployments'])]).covered).toBe(false);
  });

  it('non-resource URLs: exact, * and prefix*; resource rules never cover them', () => {
    expect(covers([urls(['get'], ['/healthz'])], [urls(['get'], ['/healthz'])]).covered).toBe(true);
    expect(covers([urls(['get'], ['/api/*'])], [urls(['get'], ['/api/v1'])]).covered).toBe(true);
    expect(covers([urls(['get'], ['*'])], [urls(['get'], ['/anything'])]).covered).toBe(true);
    expect(covers([urls(['get'], ['/api/v1'])], [urls(['get'], ['/api/*'])]).covered).toBe(false);
    expect(covers([rule(['*'], ['*'], ['*'])], [urls(['get'], ['/healthz'])]).covered).toBe(false);
    expect(covers([urls(['*'], ['*'])], [rule(['get'], [''], ['pods'])]).covered).toBe(false);
  });

  it('nothing to cover is covered; nothing owned covers nothing', () => {
    expect(covers([], []).covered).toBe(true);
    expect(covers([], [rule(['get'], [''], ['pods'])]).missing).toEqual([rule(['get'], [''], ['pods'])]);
  });
});
