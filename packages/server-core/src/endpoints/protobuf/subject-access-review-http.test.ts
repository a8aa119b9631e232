import { beforeEach, describe, expect, it } from 'vitest';
import { CAROL_READS_DEV, recordingPolicy } from '../../test-support/subject-access-review-fixtures.ts';
import { testServers } from '../../test-support/test-servers.ts';
import { encodeKubernetesProtobuf, KUBERNETES_PROTOBUF } from './codec.ts';

/**
 * The delegated-authorization API as client-go sends it when its content type is protobuf (an aggregated server's
 * delegating authorizer, a webhook client): SubjectAccessReview and LocalSubjectAccessReview bodies in Kubernetes'
 * protobuf, answered as JSON. They were a 415 before the codec knew these kinds.
 */

describe('SubjectAccessReview and LocalSubjectAccessReview sent as protobuf', () => {
  const { authorizer, asked } = recordingPolicy();
  const start = testServers({ tokens: 'admin-token,admin,1,"system:masters"\n', authorizer });
  let url = '';
  beforeEach(async () => {
    url = (await start()).url;
  });

  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  async function post(path: string, obj: Record<string, unknown>): Promise<{ status: number; body: any }> {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': KUBERNETES_PROTOBUF,
        accept: `${KUBERNETES_PROTOBUF}, application/json`,
        authorization: 'Bearer admin-token',
      },
      body: encodeKubernetesProtobuf(obj),
    });
    return { status: res.status, body: await res.json() };
  }

  const spec = CAROL_READS_DEV;

  it('SubjectAccessReview: the reviewed user, groups, extra and uid reach the authorizer', async () => {
    const { status, body } = await post('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec,
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ kind: 'SubjectAccessReview', spec, status: { allowed: true, reason: 'carol reads dev' } });
    expect(asked.at(-1)).toMatchObject({
      user: { name: 'carol', groups: ['team-a'], uid: 'c-1', extra: { scopes: ['view', 'edit'] } },
      verb: 'get',
      namespace: 'dev',
      resource: 'configmaps',
      name: 'x',
    });
  });

  it('LocalSubjectAccessReview: answered in the namespace of the path', async () => {
    const { status, body } = await post('/apis/authorization.k8s.io/v1/namespaces/dev/localsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      metadata: { namespace: 'dev' },
      spec: { ...spec, resourceAttributes: { ...spec.resourceAttributes, namespace: 'dev' } },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ kind: 'LocalSubjectAccessReview', metadata: { namespace: 'dev' }, status: { allowed: true } });
    const denied = await post('/apis/authorization.k8s.io/v1/namespaces/prod/localsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      metadata: { namespace: 'prod' },
      spec: { ...spec, resourceAttributes: { ...spec.resourceAttributes, namespace: 'prod' } },
    });
    expect(denied.status).toBe(201);
    expect(denied.body.status).toEqual({ allowed: false });
  });
});
