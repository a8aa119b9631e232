import { FakeClock } from '@kapi/apimachinery';
import { AlwaysDenyAuthorizer, type AuthorizationAttributes, type Authorizer, unionAuthorizer } from '@kapi/authz';
import { describe, expect, it } from 'vitest';
import { encodeKubernetesProtobuf, KUBERNETES_PROTOBUF } from '../endpoints/protobuf/codec.ts';
import { json, post as postAs, testServers } from '../test-support/test-servers.ts';

/** SelfSubjectReview, SelfSubjectAccessReview and SelfSubjectRulesReview over HTTP, as GenericAPIServer serves them. */

const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const SSRR = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';

const clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5, 678));

const serve = testServers({ tokens: 'admin-token,admin,1,"system:masters"\nbob-token,bob,2\n', clock });
const start = async (options?: Parameters<typeof serve>[0]): Promise<string> => (await serve(options)).url;
const post = (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  postAs(url, body, { authorization: 'Bearer admin-token', ...headers });

const REVIEWS = ['selfsubjectreviews', 'selfsubjectaccessreviews', 'selfsubjectrulesreviews'];
/** Everyone may create the reviews (RBAC's system:basic-user in kube). */
const isReview = (a: AuthorizationAttributes): boolean => a.resourceRequest && a.verb === 'create' && REVIEWS.includes(a.resource);

/** Admin may do anything; bob may get configmaps in "dev" and /healthz; "evil" is denied outright; throws on "boom". */
const policy: Authorizer = {
  async authorize(a: AuthorizationAttributes) {
    if (a.user.groups.includes('system:masters')) return { decision: 'Allow', reason: 'admin' };
    if (isReview(a) && a.path !== '') return { decision: 'Allow', reason: '' };
    if (a.resource === 'boom') throw new Error('policy engine down');
    if (a.resource === 'evil') return { decision: 'Deny', reason: 'never' };
    if (a.resourceRequest && a.verb === 'get' && a.resource === 'configmaps' && a.namespace === 'dev')
      return { decision: 'Allow', reason: 'bob reads dev' };
    if (!a.resourceRequest && a.path === '/healthz') return { decision: 'Allow', reason: '' };
    return { decision: 'NoOpinion', reason: '' };
  },
};

describe('SelfSubjectReview', () => {
  it('answers with the requesting user as kube does, in v1 and v1beta1', async () => {
    const url = await start();
    const res = await post(`${url}${SSR}`, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: '2026-01-02T03:04:05Z' },
      status: { userInfo: { username: 'admin', uid: '1', groups: ['system:masters', 'system:authenticated'] } },
    });
    const beta = await post(`${url}/apis/authentication.k8s.io/v1beta1/selfsubjectreviews`, {}, { authorization: 'Bearer bob-token' });
    expect(beta.status).toBe(201);
    expect(await json(beta)).toMatchObject({
      apiVersion: 'authentication.k8s.io/v1beta1',
      status: { userInfo: { username: 'bob', uid: '2', groups: ['system:authenticated'] } },
    });
  });

  it('answers the impersonated user, extra included', async () => {
    const url = await start({ authorizer: policy });
    const res = await post(`${url}${SSR}`, {}, { 'impersonate-user': 'carol', 'impersonate-extra-scopes': 'view' });
    expect(await json(res)).toMatchObject({
      status: { userInfo: { username: 'carol', groups: ['system:authenticated'], extra: { scopes: ['view'] } } },
    });
  });

  it('reads the protobuf body kubectl ≥ 1.28 sends, and refuses a body of another kind or version', async () => {
    const url = await start();
    const pb = encodeKubernetesProtobuf({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} });
    const res = await post(`${url}${SSR}`, pb, { 'content-type': KUBERNETES_PROTOBUF, accept: `${KUBERNETES_PROTOBUF},application/json` });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect((await json(res)).status.userInfo.username).toBe('admin');
    const wrongVersion = await post(`${url}${SSR}`, { apiVersion: 'authentication.k8s.io/v1beta1', kind: 'SelfSubjectReview' });
    expect(wrongVersion.status).toBe(400);
    expect((await json(wrongVersion)).message).toBe(
      'the API version in the data (authentication.k8s.io/v1beta1) does not match the expected API version (authentication.k8s.io/v1)',
    );
    expect((await post(`${url}${SSR}`, { kind: 'Pod' })).status).toBe(400);
    expect((await post(`${url}${SSR}`, '{', {})).status).toBe(400);
  });

  it("refuses a body that does not decode into kube's Go types (400), and ignores the status a client sends", async () => {
    const url = await start();
    const review = (extra: Record<string, unknown>) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', ...extra });
    const cannot = 'SelfSubjectReview in version "v1" cannot be handled as a SelfSubjectReview';
    for (const [body, message] of [
      [
        review({ status: 'x' }),
        'json: cannot unmarshal string into Go struct field SelfSubjectReview.status of type v1.SelfSubjectReviewStatus',
      ],
      [
        review({ status: { userInfo: [] } }),
        'json: cannot unmarshal array into Go struct field SelfSubjectReviewStatus.status.userInfo of type v1.UserInfo',
      ],
      [
        review({ status: { userInfo: { username: 5 } } }),
        'json: cannot unmarshal number into Go struct field UserInfo.status.userInfo.username of type string',
      ],
      [
        review({ status: { userInfo: { groups: [true] } } }),
        'json: cannot unmarshal bool into Go struct field UserInfo.status.userInfo.groups of type string',
      ],
      [
        review({ status: { userInfo: { extra: { a: 'b' } } } }),
        'json: cannot unmarshal string into Go struct field UserInfo.status.userInfo.extra.a of type v1.ExtraValue',
      ],
      [review({ metadata: { labels: 'x' } }), 'metadata.labels: must be a map of string keys to string values'],
      [review({ metadata: { creationTimestamp: 7 } }), 'metadata.creationTimestamp: must be a string'],
    ] as const) {
      const res = await post(`${url}${SSR}`, body);
      expect([res.status, (await json(res)).message]).toEqual([400, `${cannot}: ${message}`]);
    }
    const beta = await post(`${url}/apis/authentication.k8s.io/v1beta1/selfsubjectreviews`, { status: 1 });
    expect((await json(beta)).message).toBe(
      'SelfSubjectReview in version "v1beta1" cannot be handled as a SelfSubjectReview: json: cannot unmarshal number into Go struct field SelfSubjectReview.status of type v1beta1.SelfSubjectReviewStatus',
    );
    // Well-typed, what the client sent is not the answer: the requesting user is.
    const sent = await post(
      `${url}${SSR}`,
      review({ metadata: { name: 'x', creationTimestamp: null }, status: { userInfo: { username: 'mallory' } } }),
    );
    expect(sent.status).toBe(201);
    expect((await json(sent)).status.userInfo.username).toBe('admin');
  });

  it('has no other verbs: GET is 405, a name is 404', async () => {
    const url = await start();
    const get = await fetch(`${url}${SSR}`, { headers: { authorization: 'Bearer admin-token' } });
    expect(get.status).toBe(405);
    expect(await json(get)).toMatchObject({ reason: 'MethodNotAllowed', code: 405 });
    expect((await fetch(`${url}${SSR}/x`, { headers: { authorization: 'Bearer admin-token' } })).status).toBe(404);
  });
});

describe('SelfSubjectAccessReview', () => {
  const review = (spec: unknown) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec });

  it('asks the authorizer about the requesting user and answers allowed/denied/reason', async () => {
    const url = await start({ authorizer: policy });
    const bob = { authorization: 'Bearer bob-token' };
    const allowed = await post(
      `${url}${SSAR}`,
      {
        ...review({ resourceAttributes: { namespace: 'dev', verb: 'get', resource: 'configmaps' } }),
        metadata: { creationTimestamp: null },
      },
      bob,
    );
    expect(allowed.status).toBe(201);
    expect(await json(allowed)).toEqual({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'dev', verb: 'get', resource: 'configmaps' } },
      status: { allowed: true, reason: 'bob reads dev' },
    });
    const other = await post(
      `${url}${SSAR}`,
      review({ resourceAttributes: { namespace: 'prod', verb: 'get', resource: 'configmaps' } }),
      bob,
    );
    expect((await json(other)).status).toEqual({ allowed: false });
    const denied = await post(`${url}${SSAR}`, review({ resourceAttributes: { verb: 'get', resource: 'evil' } }), bob);
    expect((await json(denied)).status).toEqual({ allowed: false, denied: true, reason: 'never' });
    const failed = await post(`${url}${SSAR}`, review({ resourceAttributes: { verb: 'get', resource: 'boom' } }), bob);
    expect((await json(failed)).status).toEqual({ allowed: false, evaluationError: 'policy engine down' });
    const healthz = await post(`${url}${SSAR}`, review({ nonResourceAttributes: { path: '/healthz', verb: 'get' } }), bob);
    expect((await json(healthz)).status).toEqual({ allowed: true });
    const admin = await post(`${url}${SSAR}`, review({ resourceAttributes: { verb: '*', group: '*', resource: '*' } }));
    expect((await json(admin)).status).toEqual({ allowed: true, reason: 'admin' });
  });

  it('passes the attributes as kube builds them (empty version matches all) for the impersonated user', async () => {
    const asked: AuthorizationAttributes[] = [];
    const recording: Authorizer = {
      async authorize(a) {
        asked.push(a);
        return { decision: a.user.groups.includes('system:masters') || isReview(a) ? 'Allow' : 'NoOpinion', reason: '' };
      },
    };
    const url = await start({ authorizer: recording });
    await post(
      `${url}${SSAR}`,
      review({
        resourceAttributes: { namespace: 'ns', verb: 'update', group: 'apps', resource: 'deployments', subresource: 'scale', name: 'web' },
      }),
      { 'impersonate-user': 'bob' },
    );
    const last = asked.at(-1);
    expect(last).toEqual({
      user: { name: 'bob', groups: ['system:authenticated'] },
      verb: 'update',
      resourceRequest: true,
      namespace: 'ns',
      apiGroup: 'apps',
      apiVersion: '*',
      resource: 'deployments',
      subresource: 'scale',
      name: 'web',
      path: '',
    });
  });

  it('answers 422 as kube when neither or both attributes are given, or metadata is set', async () => {
    const url = await start();
    const neither = await post(`${url}${SSAR}`, review({}));
    expect(neither.status).toBe(422);
    expect(await json(neither)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        '.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
      reason: 'Invalid',
      details: {
        group: 'authorization.k8s.io',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
            field: 'spec.resourceAttributes',
          },
        ],
      },
      code: 422,
    });
    const both = await post(
      `${url}${SSAR}`,
      review({ resourceAttributes: { verb: 'get', resource: 'pods' }, nonResourceAttributes: { path: '/healthz', verb: 'get' } }),
    );
    expect(both.status).toBe(422);
    expect((await json(both)).message).toBe(
      '.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    );
    const named = await post(`${url}${SSAR}`, { ...review({ resourceAttributes: { verb: 'get' } }), metadata: { name: 'x' } });
    expect(named.status).toBe(422);
    expect((await json(named)).details.causes[0]).toMatchObject({ field: 'metadata' });
    // No spec at all is the "neither" case.
    expect((await post(`${url}${SSAR}`, { kind: 'SelfSubjectAccessReview' })).status).toBe(422);
  });

  it('allows everything when the server has no authorizer', async () => {
    const url = await start();
    const res = await post(`${url}${SSAR}`, review({ resourceAttributes: { verb: 'delete', resource: 'namespaces' } }), {
      authorization: 'Bearer bob-token',
    });
    expect((await json(res)).status).toEqual({ allowed: true });
  });
});

describe('SelfSubjectRulesReview', () => {
  const review = (namespace?: string) => ({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    spec: namespace === undefined ? {} : { namespace },
  });

  it("lists AlwaysAllow's rules when there is no authorizer, with kube's shape", async () => {
    const url = await start();
    const res = await post(`${url}${SSRR}`, review('default'));
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({
      kind: 'SelfSubjectRulesReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: {},
      status: {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      },
    });
  });

  it('passes the user and namespace to rulesFor; an authorizer without it is incomplete', async () => {
    const seen: string[] = [];
    const withRules: Authorizer = {
      ...policy,
      authorize: policy.authorize,
      async rulesFor(user, namespace) {
        seen.push(`${user.name}@${namespace}`);
        return {
          resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] }],
          nonResourceRules: [],
          incomplete: false,
        };
      },
    };
    const url = await start({ authorizer: unionAuthorizer(withRules, new AlwaysDenyAuthorizer()) });
    const res = await post(`${url}${SSRR}`, review('dev'), { authorization: 'Bearer bob-token' });
    expect(seen).toEqual(['bob@dev']);
    expect((await json(res)).status).toEqual({
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] }],
      nonResourceRules: [],
      incomplete: false,
    });
    const url2 = await start({ authorizer: policy });
    expect((await json(await post(`${url2}${SSRR}`, review('dev')))).status).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: 'authorizer does not support user rule resolution',
    });
  });

  it("reports an evaluation error beside the rules it could resolve; incomplete only as the authorizer says (RBAC's is not)", async () => {
    const partial: Authorizer = {
      authorize: policy.authorize,
      async rulesFor() {
        return {
          resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
          incomplete: false,
          error: new Error('role.rbac.authorization.k8s.io "gone" not found'),
        };
      },
    };
    const url = await start({ authorizer: partial });
    expect((await json(await post(`${url}${SSRR}`, review('dev')))).status).toEqual({
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
      evaluationError: 'role.rbac.authorization.k8s.io "gone" not found',
    });
  });

  it('a union with an authorizer that cannot list rules is incomplete, keeping the rules of the others; a throwing rulesFor too', async () => {
    const lister: Authorizer = {
      authorize: policy.authorize,
      rulesFor: async () => ({
        resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }],
        nonResourceRules: [],
        incomplete: false,
      }),
    };
    const broken: Authorizer = {
      authorize: policy.authorize,
      rulesFor: async () => {
        throw new Error('cache not synced');
      },
    };
    const url = await start({ authorizer: unionAuthorizer(lister, policy, broken) });
    expect((await json(await post(`${url}${SSRR}`, review('dev')))).status).toEqual({
      resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: '[authorizer does not support user rule resolution, cache not synced]',
    });
  });

  it('answers for the impersonated user (kubectl auth can-i --list --as), once the impersonation is authorized', async () => {
    const seen: string[] = [];
    const authorizer: Authorizer = {
      async authorize(a) {
        if (a.verb === 'impersonate') return { decision: a.user.name === 'admin' ? 'Allow' : 'NoOpinion', reason: '' };
        return { decision: isReview(a) ? 'Allow' : 'NoOpinion', reason: '' };
      },
      async rulesFor(user, namespace) {
        seen.push(`${user.name}@${namespace}`);
        return { resourceRules: [], nonResourceRules: [], incomplete: false };
      },
    };
    const url = await start({ authorizer });
    const res = await post(`${url}${SSRR}`, review('dev'), { 'impersonate-user': 'carol' });
    expect(res.status).toBe(201);
    expect(seen).toEqual(['carol@dev']);
    const refused = await post(`${url}${SSRR}`, review('dev'), { authorization: 'Bearer bob-token', 'impersonate-user': 'carol' });
    expect(refused.status).toBe(403);
    expect((await json(refused)).message).toBe(
      'users "carol" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    expect(seen).toEqual(['carol@dev']);
  });

  it('answers 400 without a namespace, as kube', async () => {
    const url = await start();
    const res = await post(`${url}${SSRR}`, review());
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ reason: 'BadRequest', message: 'no namespace on request' });
  });
});

describe('authorization of the reviews themselves', () => {
  it('goes through the authorizer like any create (kube: create selfsubjectaccessreviews)', async () => {
    const asked: AuthorizationAttributes[] = [];
    const url = await start({
      authorizer: {
        async authorize(a) {
          asked.push(a);
          return { decision: a.resource === 'selfsubjectreviews' ? 'NoOpinion' : 'Allow', reason: '' };
        },
      },
    });
    const res = await post(`${url}${SSR}`, {});
    expect(res.status).toBe(403);
    expect((await json(res)).message).toBe(
      'selfsubjectreviews.authentication.k8s.io is forbidden: User "admin" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope',
    );
    expect(asked.at(-1)).toMatchObject({ verb: 'create', apiGroup: 'authentication.k8s.io', resource: 'selfsubjectreviews' });
  });
});
