import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserInfo } from '@kapi/authn';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuthorizationAttributes, Authorizer, Decision } from '../authorizer.ts';
import { buildAuthorizer, parseAuthorizationModes, validateAuthorizationOptions } from './authorization-modes.ts';
import { PrivilegedGroupsAuthorizer } from './privileged-groups.ts';

const user = (name: string, ...groups: string[]): UserInfo => ({ name, groups });
const attrs = (u: UserInfo, verb = 'get'): AuthorizationAttributes => ({
  user: u,
  verb,
  resourceRequest: true,
  namespace: 'default',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  name: 'p',
  path: '/api/v1/namespaces/default/pods/p',
});

/** An authorizer that answers `decision` for user `who` and NoOpinion (reason "<label> passes") otherwise, counting calls. */
function fake(label: string, who: string, decision: Decision): Authorizer & { calls: number } {
  const a = {
    calls: 0,
    async authorize(x: AuthorizationAttributes) {
      a.calls++;
      return x.user.name === who ? { decision, reason: `${label} decided` } : { decision: 'NoOpinion' as const, reason: `${label} passes` };
    },
  };
  return a;
}

describe('--authorization-mode parsing and validation (kube BuiltInAuthorizationOptions.Validate)', () => {
  it('reads the flag as pflag does', () => {
    expect(parseAuthorizationModes('Node,RBAC')).toEqual(['Node', 'RBAC']);
    expect(parseAuthorizationModes('')).toEqual([]);
    expect(parseAuthorizationModes('Node, RBAC')).toEqual(['Node', ' RBAC']);
  });

  it("gives kube's errors, in kube's order", () => {
    const messages = (o: Parameters<typeof validateAuthorizationOptions>[0]) => validateAuthorizationOptions(o).map((e) => e.message);
    expect(messages({ modes: ['Node', 'RBAC', 'Webhook'], webhookConfigFile: '/w.json' })).toEqual([]);
    expect(messages({ modes: [] })).toEqual(['at least one authorization-mode must be passed']);
    expect(messages({ modes: ['DoesNotExist', 'rbac'] })).toEqual([
      'authorization-mode "DoesNotExist" is not a valid mode',
      'authorization-mode "rbac" is not a valid mode',
    ]);
    expect(messages({ modes: ['ABAC', 'Webhook'] })).toEqual([
      "authorization-mode ABAC's authorization policy file not passed",
      "authorization-mode Webhook's authorization config file not passed",
    ]);
    expect(messages({ modes: ['RBAC'], policyFile: '/p.jsonl', webhookConfigFile: '/w.json' })).toEqual([
      'cannot specify --authorization-policy-file without mode ABAC',
      'cannot specify --authorization-webhook-config-file without mode Webhook',
    ]);
    expect(messages({ modes: ['RBAC', 'Node', 'RBAC'] })).toEqual([
      'authorization-mode ["RBAC" "Node" "RBAC"] has mode specified more than once',
    ]);
    expect(
      messages({
        modes: ['Webhook'],
        webhookConfigFile: '/w.json',
        webhookRetryBackoff: { initialDelayMs: 500, factor: 1.5, jitter: 0.2, steps: 0 },
      }),
    ).toEqual(['number of webhook retry attempts must be greater than 0, but is: 0']);
  });

  it('buildAuthorizer refuses invalid options with the errors aggregated as kube prints them', () => {
    expect(() => buildAuthorizer({ modes: ['Foo'] })).toThrow('authorization-mode "Foo" is not a valid mode');
    expect(() => buildAuthorizer({ modes: ['Foo', 'Foo'] })).toThrow(
      '[authorization-mode "Foo" is not a valid mode, authorization-mode ["Foo" "Foo"] has mode specified more than once]',
    );
    expect(() => buildAuthorizer({ modes: ['Node', 'RBAC'] }, { Node: () => fake('node', 'x', 'Allow') })).toThrow(
      'authorizer type RBAC is not allowed if it was not enabled at initial server startup',
    );
  });
});

describe('buildAuthorizer (kube-apiserver mode composition)', () => {
  it('puts system:masters first, then the modes in the order given; the first Allow or Deny wins', async () => {
    const node = fake('node', 'system:node:n1', 'Allow');
    const rbac = fake('rbac', 'bob', 'Allow');
    const authz = buildAuthorizer({ modes: ['Node', 'RBAC', 'AlwaysDeny'] }, { Node: () => node, RBAC: () => rbac });
    expect(await authz.authorize(attrs(user('root', 'system:masters')))).toEqual({ decision: 'Allow', reason: '' });
    expect(node.calls).toBe(0);
    expect(await authz.authorize(attrs(user('system:node:n1')))).toEqual({ decision: 'Allow', reason: 'node decided' });
    expect(rbac.calls).toBe(0);
    expect(await authz.authorize(attrs(user('bob')))).toEqual({ decision: 'Allow', reason: 'rbac decided' });
    expect(await authz.authorize(attrs(user('eve')))).toEqual({
      decision: 'NoOpinion',
      reason: 'node passes\nrbac passes\nEverything is forbidden.',
    });

    // Another order, another answer: a Deny before the Allow wins.
    const denier = fake('webhook', 'bob', 'Deny');
    const reordered = buildAuthorizer(
      { modes: ['Webhook', 'RBAC'], webhookConfigFile: '/w.json' },
      { Webhook: () => denier, RBAC: () => rbac },
    );
    expect((await reordered.authorize(attrs(user('bob')))).decision).toBe('Deny');
  });

  it('defaults to AlwaysAllow (kube Complete); system:masters adds no rules of its own (kube: no rule resolver)', async () => {
    const authz = buildAuthorizer({});
    expect((await authz.authorize(attrs(user('anyone')))).decision).toBe('Allow');
    const deny = buildAuthorizer({ modes: ['AlwaysDeny'] });
    expect(await deny.rulesFor?.(user('root', 'system:masters'), 'default')).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
    });
    expect(await deny.rulesFor?.(user('bob'), 'default')).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false });
  });

  const dir = mkdtempSync(join(tmpdir(), 'kapi-modes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds ABAC from the policy file, and passes the webhook config file to the Webhook factory', async () => {
    const policyFile = join(dir, 'abac.jsonl');
    writeFileSync(
      policyFile,
      '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"alice","namespace":"*","resource":"*","apiGroup":"*"}}\n',
    );
    const seen: string[] = [];
    const authz = buildAuthorizer(
      { modes: ['ABAC', 'Webhook'], policyFile, webhookConfigFile: '/etc/w.json' },
      {
        Webhook: (file) => {
          seen.push(file);
          return fake('webhook', 'bob', 'Allow');
        },
      },
    );
    expect(seen).toEqual(['/etc/w.json']);
    expect((await authz.authorize(attrs(user('alice', 'system:authenticated'), 'delete'))).decision).toBe('Allow');
    expect(await authz.authorize(attrs(user('carol')))).toEqual({ decision: 'NoOpinion', reason: 'No policy matched.\nwebhook passes' });

    writeFileSync(policyFile, 'nope\n');
    expect(() => buildAuthorizer({ modes: ['ABAC'], policyFile })).toThrow(`error reading policy file ${policyFile}, line 1: nope:`);
  });
});

describe('buildAuthorizer instrument', () => {
  it('wraps each mode (not system:masters) in order, and the wrapper decides', async () => {
    const seen: string[] = [];
    const az = buildAuthorizer(
      { modes: ['AlwaysDeny', 'AlwaysAllow'] },
      {
        instrument: (mode, inner) => {
          seen.push(mode);
          return { authorize: async (a) => (mode === 'AlwaysDeny' ? { decision: 'NoOpinion', reason: '' } : inner.authorize(a)) };
        },
      },
    );
    expect(seen).toEqual(['AlwaysDeny', 'AlwaysAllow']);
    // AlwaysDeny's wrapper passes, so AlwaysAllow decides.
    expect((await az.authorize(attrs(user('bob')))).decision).toBe('Allow');
  });
});

describe('PrivilegedGroupsAuthorizer (kube NewPrivilegedGroups)', () => {
  it('allows members of any of its groups and has no opinion on others', async () => {
    const a = new PrivilegedGroupsAuthorizer('system:masters', 'admins');
    expect(await a.authorize(attrs(user('x', 'admins')))).toEqual({ decision: 'Allow', reason: '' });
    expect(await a.authorize(attrs(user('system:masters')))).toEqual({ decision: 'NoOpinion', reason: '' });
  });
});
