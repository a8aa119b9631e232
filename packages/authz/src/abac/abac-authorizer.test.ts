import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserInfo } from '@kapi/authn';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuthorizationAttributes } from '../authorizer.ts';
import { ABAC_NO_POLICY_MATCHED, ABACAuthorizer } from './abac-authorizer.ts';
import { ABACPolicyLoadError, parseABACPolicies } from './policy.ts';

const v1 = (spec: Record<string, unknown>): string =>
  JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });

const user = (name: string, ...groups: string[]): UserInfo => ({ name, groups });
const alice = user('alice', 'system:authenticated');
const anonymous = user('system:anonymous', 'system:unauthenticated');

function res(u: UserInfo, verb: string, resource: string, namespace = '', apiGroup = ''): AuthorizationAttributes {
  return { user: u, verb, resourceRequest: true, namespace, apiGroup, apiVersion: 'v1', resource, subresource: '', name: '', path: '' };
}
function path(u: UserInfo, verb: string, p: string): AuthorizationAttributes {
  return {
    user: u,
    verb,
    resourceRequest: false,
    namespace: '',
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    name: '',
    path: p,
  };
}
const decide = async (abac: ABACAuthorizer, a: AuthorizationAttributes): Promise<string> => (await abac.authorize(a)).decision;

describe('ABAC policy file (kube abac.NewFromFile)', () => {
  it("reads kube's example file (unversioned lines), skipping blank and # lines", () => {
    const text = `# kube's pkg/auth/authorizer/abac/example_policy_file.jsonl
{"user":"admin"}
{"user":"scheduler", "readonly": true, "resource": "pods"}

   # an indented comment
{"user":"alice", "namespace": "projectCaribou"}\r
`;
    const p = parseABACPolicies(text, 'policy.jsonl');
    expect(p).toEqual([
      { user: 'admin', group: '', readonly: false, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '*' },
      { user: 'scheduler', group: '', readonly: true, apiGroup: '*', resource: 'pods', namespace: '*', nonResourcePath: '' },
      { user: 'alice', group: '', readonly: false, apiGroup: '*', resource: '*', namespace: 'projectCaribou', nonResourcePath: '' },
    ]);
  });

  it('converts v0 lines as kube: no subject or a * one means system:authenticated', () => {
    const p = parseABACPolicies('{"readonly": true, "resource": "events"}\n{"user":"*","resource":"pods"}\n{"group":"*"}\n', 'f');
    expect(p.map((x) => [x.user, x.group])).toEqual([
      ['', 'system:authenticated'],
      ['', 'system:authenticated'],
      ['', 'system:authenticated'],
    ]);
  });

  it('reads a null line as kube does: an empty unversioned policy, which allows every authenticated user everything', () => {
    expect(parseABACPolicies('null\n', 'f')).toEqual([
      { user: '', group: 'system:authenticated', readonly: false, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '*' },
    ]);
  });

  it('reads v1beta1 Policies as they are, except a * user or group (every authenticated subject)', () => {
    const p = parseABACPolicies(
      `${v1({ user: 'bob', namespace: 'ns', resource: 'pods', apiGroup: '' })}\n${v1({ user: '*', nonResourcePath: '/version' })}\n${v1({ group: 'system:unauthenticated', readonly: true, nonResourcePath: '*' })}`,
      'f',
    );
    expect(p).toEqual([
      { user: 'bob', group: '', readonly: false, apiGroup: '', resource: 'pods', namespace: 'ns', nonResourcePath: '' },
      { user: '', group: 'system:authenticated', readonly: false, apiGroup: '', resource: '', namespace: '', nonResourcePath: '/version' },
      { user: '', group: 'system:unauthenticated', readonly: true, apiGroup: '', resource: '', namespace: '', nonResourcePath: '*' },
    ]);
  });

  it('words errors as kube: the file, the line number, the line and the cause', () => {
    const err = (text: string) => {
      try {
        parseABACPolicies(text, '/etc/abac.jsonl');
      } catch (e) {
        expect(e).toBeInstanceOf(ABACPolicyLoadError);
        return (e as Error).message;
      }
      throw new Error('no error');
    };
    expect(err('# c\n\n{"user":"a"}\nnot json\n')).toBe(
      "error reading policy file /etc/abac.jsonl, line 4: not json: couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')",
    );
    expect(err('{"user":"a",}')).toBe(
      `error reading policy file /etc/abac.jsonl, line 1: {"user":"a",}: couldn't get version/kind; json parse error: invalid character '}' looking for beginning of object key string`,
    );
    expect(err('{"user":"a"')).toBe(
      `error reading policy file /etc/abac.jsonl, line 1: {"user":"a": couldn't get version/kind; json parse error: unexpected end of JSON input`,
    );
    expect(err('{"user":"a"} x')).toContain("invalid character 'x' after top-level value");
    expect(err(v1({ readonly: 'yes' }))).toBe(
      `error reading policy file /etc/abac.jsonl, line 1: ${v1({ readonly: 'yes' })}: json: cannot unmarshal string into Go struct field PolicySpec.spec.readonly of type bool`,
    );
    expect(err('"x"')).toContain('json parse error: json: cannot unmarshal string into Go value of type struct {');
    expect(err('{"kind": 5}')).toContain('json parse error: json: cannot unmarshal number into Go struct field .kind of type string');
    expect(err('{"user": 5}')).toContain('json: cannot unmarshal number into Go struct field Policy.user of type string');
    expect(err('{"apiVersion":"abac.authorization.kubernetes.io/v2","kind":"Policy"}')).toContain(
      'no kind "Policy" is registered for version "abac.authorization.kubernetes.io/v2"',
    );
    expect(err(`{"user":"a"}\n${'x'.repeat(70_000)}\n`)).toBe('error reading policy file /etc/abac.jsonl: bufio.Scanner: token too long');
  });
});

describe('ABACAuthorizer (kube pkg/auth/authorizer/abac)', () => {
  const abac = new ABACAuthorizer(
    parseABACPolicies(
      [
        v1({ user: 'alice', namespace: 'projectCaribou', resource: '*', apiGroup: '*' }),
        v1({ user: 'bob', readonly: true, namespace: 'projectCaribou', resource: 'pods', apiGroup: '' }),
        v1({ group: 'ops', namespace: '*', resource: 'deployments', apiGroup: 'apps' }),
        v1({ user: '*', readonly: true, nonResourcePath: '/apis/*' }),
        v1({ group: 'system:unauthenticated', readonly: true, nonResourcePath: '/healthz' }),
        v1({ user: 'carol', group: 'admins', namespace: '*', resource: '*', apiGroup: '*' }),
      ].join('\n'),
      'f',
    ),
  );

  it('allows what a policy matches and has no opinion otherwise (ABAC never denies)', async () => {
    expect(await decide(abac, res(alice, 'delete', 'secrets', 'projectCaribou'))).toBe('Allow');
    expect(await abac.authorize(res(alice, 'get', 'secrets', 'other'))).toEqual({ decision: 'NoOpinion', reason: ABAC_NO_POLICY_MATCHED });
    expect(await decide(abac, res(alice, 'get', 'secrets', ''))).toBe('NoOpinion');
  });

  it('readonly policies allow only get, list and watch', async () => {
    const bob = user('bob', 'system:authenticated');
    for (const verb of ['get', 'list', 'watch']) expect(await decide(abac, res(bob, verb, 'pods', 'projectCaribou'))).toBe('Allow');
    for (const verb of ['create', 'update', 'patch', 'delete', 'deletecollection'])
      expect(await decide(abac, res(bob, verb, 'pods', 'projectCaribou'))).toBe('NoOpinion');
  });

  it('matches the API group exactly unless it is *', async () => {
    const ops = user('dan', 'ops');
    expect(await decide(abac, res(ops, 'update', 'deployments', 'x', 'apps'))).toBe('Allow');
    expect(await decide(abac, res(ops, 'update', 'deployments', 'x', 'extensions'))).toBe('NoOpinion');
  });

  it('matches non-resource paths by *, exactly, or by a /prefix/* — never a resource request', async () => {
    expect(await decide(abac, path(alice, 'get', '/apis/apps/v1'))).toBe('Allow');
    expect(await decide(abac, path(alice, 'get', '/apis'))).toBe('NoOpinion');
    expect(await decide(abac, path(alice, 'post', '/apis/x'))).toBe('NoOpinion');
    expect(await decide(abac, path(anonymous, 'get', '/healthz'))).toBe('Allow');
    expect(await decide(abac, path(anonymous, 'get', '/healthz/etcd'))).toBe('NoOpinion');
    // user "*" became system:authenticated: the anonymous user is not in it.
    expect(await decide(abac, path(anonymous, 'get', '/apis/x'))).toBe('NoOpinion');
  });

  it('needs both user and group to match when a policy names both', async () => {
    expect(await decide(abac, res(user('carol', 'admins'), 'delete', 'nodes'))).toBe('Allow');
    expect(await decide(abac, res(user('carol', 'devs'), 'delete', 'nodes'))).toBe('NoOpinion');
    expect(await decide(abac, res(user('eve', 'admins'), 'delete', 'nodes'))).toBe('NoOpinion');
  });

  it("gives kube's RulesFor: the user's policies in the namespace, readonly as get/list/watch, complete", async () => {
    expect(await abac.rulesFor(user('bob', 'system:authenticated'), 'projectCaribou')).toEqual({
      resourceRules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }],
      nonResourceRules: [],
      incomplete: false,
    });
    expect(await abac.rulesFor(alice, 'projectCaribou')).toEqual({
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [],
      incomplete: false,
    });
    // As in kube, a path policy (namespace "") is listed only for the namespace "" (or when its namespace is *).
    expect(await abac.rulesFor(alice, '')).toEqual({
      resourceRules: [],
      nonResourceRules: [{ verbs: ['get', 'list', 'watch'], nonResourceURLs: ['/apis/*'] }],
      incomplete: false,
    });
    expect((await abac.rulesFor(alice, 'other')).resourceRules).toEqual([]);
  });

  const dir = mkdtempSync(join(tmpdir(), 'abac-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a policy file from disk (fromFile)', async () => {
    const file = join(dir, 'policy.jsonl');
    writeFileSync(file, `${v1({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' })}\n`);
    expect(await decide(ABACAuthorizer.fromFile(file), res(alice, 'create', 'pods', 'x'))).toBe('Allow');
    writeFileSync(file, '{\n');
    expect(() => ABACAuthorizer.fromFile(file)).toThrow(
      `error reading policy file ${file}, line 1: {: couldn't get version/kind; json parse error: unexpected end of JSON input`,
    );
  });
});
