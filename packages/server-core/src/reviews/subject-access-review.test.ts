import { describe, expect, it } from 'vitest';
import { AUTHORIZATION_V1_RESOURCES } from '../test-support/authorization-discovery.ts';
import { CAROL_READS_DEV, recordingPolicy } from '../test-support/subject-access-review-fixtures.ts';
import { json, post as postAs, testServers } from '../test-support/test-servers.ts';

/** SubjectAccessReview and LocalSubjectAccessReview over HTTP, as GenericAPIServer serves them. */

const SAR = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
const lsar = (ns: string): string => `/apis/authorization.k8s.io/v1/namespaces/${ns}/localsubjectaccessreviews`;

const serve = testServers({ tokens: 'admin-token,admin,1,"system:masters"\nbob-token,bob,2\n' });
const start = async (options?: Parameters<typeof serve>[0]): Promise<string> => (await serve(options)).url;
const post = (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  postAs(url, body, { authorization: 'Bearer admin-token', ...headers });

const sar = (spec: unknown, metadata?: unknown) => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SubjectAccessReview',
  ...(metadata === undefined ? {} : { metadata }),
  spec,
});
const local = (spec: unknown, metadata?: unknown) => ({ ...sar(spec, metadata), kind: 'LocalSubjectAccessReview' });

describe('SubjectAccessReview', () => {
  it('asks the authorizer about the user the spec names (not the requester) and answers as kube', async () => {
    const { authorizer, asked } = recordingPolicy();
    const url = await start({ authorizer });
    const spec = CAROL_READS_DEV;
    const res = await post(`${url}${SAR}`, sar(spec));
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({
      kind: 'SubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec,
      status: { allowed: true, reason: 'carol reads dev' },
    });
    expect(asked.at(-1)).toEqual({
      user: { name: 'carol', groups: ['team-a'], uid: 'c-1', extra: { scopes: ['view', 'edit'] } },
      verb: 'get',
      resourceRequest: true,
      namespace: 'dev',
      apiGroup: '',
      apiVersion: '*',
      resource: 'configmaps',
      subresource: '',
      name: 'x',
      path: '',
    });
    // The requester (admin) would be allowed; the reviewed user is not.
    const other = await post(
      `${url}${SAR}`,
      sar({ resourceAttributes: { namespace: 'prod', verb: 'get', resource: 'configmaps' }, user: 'carol' }),
    );
    expect((await json(other)).status).toEqual({ allowed: false });
  });

  it('reports denied, evaluation errors and non-resource attributes; groups alone name a subject', async () => {
    const { authorizer, asked } = recordingPolicy();
    const url = await start({ authorizer });
    const denied = await post(`${url}${SAR}`, sar({ resourceAttributes: { verb: 'get', resource: 'evil' }, user: 'carol' }));
    expect((await json(denied)).status).toEqual({ allowed: false, denied: true, reason: 'never' });
    const failed = await post(`${url}${SAR}`, sar({ resourceAttributes: { verb: 'get', resource: 'boom' }, user: 'carol' }));
    expect((await json(failed)).status).toEqual({ allowed: false, evaluationError: 'policy engine down' });
    const masters = await post(
      `${url}${SAR}`,
      sar({ nonResourceAttributes: { path: '/metrics', verb: 'get' }, groups: ['system:masters'] }),
    );
    expect(await json(masters)).toMatchObject({
      spec: { nonResourceAttributes: { path: '/metrics', verb: 'get' }, groups: ['system:masters'] },
      status: { allowed: true, reason: 'admin' },
    });
    expect(asked.at(-1)).toMatchObject({
      user: { name: '', groups: ['system:masters'] },
      resourceRequest: false,
      path: '/metrics',
      verb: 'get',
    });
  });

  it('answers 422 with kube texts when no user or group is named, or metadata is set', async () => {
    const url = await start();
    const nobody = await post(`${url}${SAR}`, sar({ resourceAttributes: { verb: 'get', resource: 'pods' } }));
    expect(nobody.status).toBe(422);
    expect(await json(nobody)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: '.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
      reason: 'Invalid',
      details: {
        group: 'authorization.k8s.io',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "": at least one of user or group must be specified',
            field: 'spec.user',
          },
        ],
      },
      code: 422,
    });
    const empty = await json(await post(`${url}${SAR}`, sar({ groups: [] })));
    expect(empty.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.resourceAttributes', 'spec.user']);
    expect(empty.message).toBe(
      '.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    );
    const named = await post(`${url}${SAR}`, sar({ nonResourceAttributes: { path: '/x', verb: 'get' }, user: 'u' }, { name: 'x' }));
    expect(named.status).toBe(422);
    expect((await json(named)).details.causes).toEqual([
      expect.objectContaining({ field: 'metadata', message: expect.stringContaining('must be empty') }),
    ]);
    // A cluster-scoped object's namespace is cleared by the create handler, as kube's does, so it is no error.
    const namespaced = await post(
      `${url}${SAR}`,
      sar({ nonResourceAttributes: { path: '/x', verb: 'get' }, user: 'u' }, { namespace: 'dev' }),
    );
    expect(namespaced.status).toBe(201);
    expect((await json(namespaced)).metadata).toEqual({ creationTimestamp: null });
  });

  it('answers 400 for fields of the wrong JSON type, as kube fails to decode them', async () => {
    const url = await start();
    const cases: [unknown, string][] = [
      [{ user: 5 }, 'json: cannot unmarshal number into Go struct field SubjectAccessReviewSpec.spec.user of type string'],
      [
        { user: 'u', groups: 'g' },
        'json: cannot unmarshal string into Go struct field SubjectAccessReviewSpec.spec.groups of type []string',
      ],
      [
        { user: 'u', groups: [true] },
        'json: cannot unmarshal bool into Go struct field SubjectAccessReviewSpec.spec.groups of type string',
      ],
      [
        { user: 'u', extra: { a: 'b' } },
        'json: cannot unmarshal string into Go struct field SubjectAccessReviewSpec.spec.extra.a of type v1.ExtraValue',
      ],
      [
        { user: 'u', resourceAttributes: { verb: [] } },
        'json: cannot unmarshal array into Go struct field ResourceAttributes.spec.resourceAttributes.verb of type string',
      ],
      [
        { user: 'u', nonResourceAttributes: 'x' },
        'json: cannot unmarshal string into Go struct field SubjectAccessReviewSpec.spec.nonResourceAttributes of type v1.NonResourceAttributes',
      ],
      ['spec', 'json: cannot unmarshal string into Go struct field SubjectAccessReview.spec of type v1.SubjectAccessReviewSpec'],
    ];
    for (const [spec, message] of cases) {
      const res = await post(`${url}${SAR}`, sar(spec));
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({
        reason: 'BadRequest',
        message: `SubjectAccessReview in version "v1" cannot be handled as a SubjectAccessReview: ${message}`,
      });
    }
  });

  it('is itself authorized like any create (kube: create subjectaccessreviews at the cluster scope)', async () => {
    const { authorizer } = recordingPolicy();
    const url = await start({ authorizer });
    const res = await post(`${url}${SAR}`, sar({ resourceAttributes: { verb: 'get', resource: 'pods' }, user: 'u' }), {
      authorization: 'Bearer bob-token',
    });
    expect(res.status).toBe(403);
    expect((await json(res)).message).toBe(
      'subjectaccessreviews.authorization.k8s.io is forbidden: User "bob" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope',
    );
  });
});

describe('LocalSubjectAccessReview', () => {
  it("answers in the path's namespace, defaulting metadata.namespace to it", async () => {
    const { authorizer, asked } = recordingPolicy();
    const url = await start({ authorizer });
    const spec = { resourceAttributes: { namespace: 'dev', verb: 'get', resource: 'configmaps' }, user: 'carol' };
    const res = await post(`${url}${lsar('dev')}`, local(spec));
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({
      kind: 'LocalSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { namespace: 'dev', creationTimestamp: null },
      spec,
      status: { allowed: true, reason: 'carol reads dev' },
    });
    expect(asked.at(-1)).toMatchObject({ user: { name: 'carol', groups: [] }, namespace: 'dev', resource: 'configmaps' });
    const explicit = await post(`${url}${lsar('dev')}`, local(spec, { namespace: 'dev' }));
    expect(explicit.status).toBe(201);
  });

  it('answers 422 with kube texts: the namespace must match, no non-resource attributes, metadata but the namespace empty', async () => {
    const url = await start();
    const elsewhere = await post(`${url}${lsar('dev')}`, local({ resourceAttributes: { namespace: 'prod', verb: 'get' }, user: 'u' }));
    expect(elsewhere.status).toBe(422);
    expect((await json(elsewhere)).message).toBe(
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "prod": must match metadata.namespace',
    );
    // An empty resourceAttributes.namespace does not match either (kube does not default it).
    const unset = await post(`${url}${lsar('dev')}`, local({ resourceAttributes: { verb: 'get' }, user: 'u' }));
    expect((await json(unset)).message).toBe(
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "": must match metadata.namespace',
    );
    const path = await post(`${url}${lsar('dev')}`, local({ nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'u' }));
    expect(path.status).toBe(422);
    expect(await json(path)).toMatchObject({
      message:
        '.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: disallowed on this kind of request',
      details: { causes: [{ field: 'spec.nonResourceAttributes', reason: 'FieldValueInvalid' }] },
    });
    const named = await post(`${url}${lsar('dev')}`, local({ resourceAttributes: { namespace: 'dev' }, user: 'u' }, { name: 'n' }));
    expect((await json(named)).details.causes).toEqual([
      expect.objectContaining({ field: 'metadata', message: expect.stringContaining('must be empty except for namespace') }),
    ]);
    const nobody = await post(`${url}${lsar('dev')}`, local({ resourceAttributes: { namespace: 'dev' } }));
    expect((await json(nobody)).details.causes).toEqual([expect.objectContaining({ field: 'spec.user' })]);
  });

  it('refuses a body naming another namespace (400) and has no cluster-scoped route (404)', async () => {
    const url = await start();
    const spec = { resourceAttributes: { namespace: 'dev', verb: 'get' }, user: 'u' };
    const mismatch = await post(`${url}${lsar('dev')}`, local(spec, { namespace: 'prod' }));
    expect(mismatch.status).toBe(400);
    expect(await json(mismatch)).toMatchObject({
      reason: 'BadRequest',
      message: 'the namespace of the provided object does not match the namespace sent on the request',
    });
    expect((await post(`${url}/apis/authorization.k8s.io/v1/localsubjectaccessreviews`, local(spec))).status).toBe(404);
    expect((await post(`${url}/apis/authorization.k8s.io/v1/namespaces/dev/subjectaccessreviews`, sar(spec))).status).toBe(404);
  });

  it('is authorized in its namespace (kube: create localsubjectaccessreviews in the namespace)', async () => {
    const { authorizer } = recordingPolicy();
    const url = await start({ authorizer });
    const res = await post(`${url}${lsar('dev')}`, local({ resourceAttributes: { namespace: 'dev' }, user: 'u' }), {
      authorization: 'Bearer bob-token',
    });
    expect(res.status).toBe(403);
    expect((await json(res)).message).toBe(
      'localsubjectaccessreviews.authorization.k8s.io is forbidden: User "bob" cannot create resource "localsubjectaccessreviews" in API group "authorization.k8s.io" in the namespace "dev"',
    );
  });

  it('is listed in discovery beside SubjectAccessReview, namespaced, as kube lists them', async () => {
    const url = await start();
    const res = await fetch(`${url}/apis/authorization.k8s.io/v1`, { headers: { authorization: 'Bearer admin-token' } });
    expect((await json(res)).resources).toEqual(AUTHORIZATION_V1_RESOURCES);
  });
});
