import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ServiceAccount } from '@kapi/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries, writePlainKubeconfig } from '../../../../scripts/kubectl-binaries.ts';
import type { VirtualResourceInfo } from '../discovery/documents.ts';
import { selfSubjectAccessReviewResource } from '../reviews/self-subject-access-review.ts';
import { localSubjectAccessReviewResource } from '../reviews/subject-access-review.ts';
import { testServers } from '../test-support/test-servers.ts';
import { routesOf } from './routes.ts';
import { swaggerDocument } from './v2-document.ts';
import { groupVersionDocument } from './v3-document.ts';

/**
 * The virtual resources (the reviews) in the OpenAPI documents, as kube-apiserver publishes its rest.Creater-only
 * resources: a create path, and the kind's schema built from the protobuf codec's message, so that `kubectl explain`
 * finds them; a subresource's own kind (TokenRequest) gets its schema the same way.
 */

const SSAR: VirtualResourceInfo = selfSubjectAccessReviewResource();
const LSAR: VirtualResourceInfo = localSubjectAccessReviewResource();
const OWN: VirtualResourceInfo = { ...SSAR, group: 'example.kapi.dev', resource: 'previews', kind: 'Preview' };
const A = 'io.k8s.api.authorization.v1';

describe('virtual resources in the OpenAPI documents', () => {
  it('v3: the create path with its write parameters, the kind and every nested message as definitions', () => {
    const doc = groupVersionDocument([], 'v1', undefined, undefined, [SSAR, LSAR]);
    const post = doc.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews']?.post as Record<string, unknown>;
    expect(post.operationId).toBe('createAuthorizationV1SelfSubjectAccessReview');
    expect(post['x-kubernetes-action']).toBe('post');
    expect((post.parameters as { name: string }[]).map((p) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
    expect(Object.keys(doc.paths)).toEqual([
      '/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    ]);
    const s = doc.components.schemas;
    expect(s[`${A}.SelfSubjectAccessReview`]).toMatchObject({
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }] },
        spec: { $ref: `#/components/schemas/${A}.SelfSubjectAccessReviewSpec` },
        status: { $ref: `#/components/schemas/${A}.SubjectAccessReviewStatus` },
      },
      'x-kubernetes-group-version-kind': [{ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' }],
    });
    expect(s[`${A}.ResourceAttributes`]?.properties).toMatchObject({
      verb: { type: 'string' },
      fieldSelector: { $ref: `#/components/schemas/${A}.FieldSelectorAttributes` },
    });
    expect(s[`${A}.FieldSelectorAttributes`]?.properties?.requirements).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement' },
    });
    // Go's []string ExtraValue, a map of them.
    expect(s[`${A}.SubjectAccessReviewSpec`]?.properties?.extra).toEqual({
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    });
    expect(s[`${A}.SubjectAccessReviewStatus`]?.properties?.allowed).toEqual({ type: 'boolean' });
    expect(s['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
  });

  it('a virtual resource of a kind no message models is an object keeping any field; v2 lists the paths and definitions', () => {
    const doc = groupVersionDocument([], 'v1', undefined, undefined, [OWN]);
    expect(doc.components.schemas['dev.kapi.example.v1.Preview']).toMatchObject({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-group-version-kind': [{ group: 'example.kapi.dev', version: 'v1', kind: 'Preview' }],
    });
    const v2 = swaggerDocument([], undefined, [SSAR]);
    expect(v2.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews']?.post).toMatchObject({
      operationId: 'createAuthorizationV1SelfSubjectAccessReview',
    });
    expect(v2.definitions[`${A}.SelfSubjectAccessReviewSpec`]?.properties).toMatchObject({
      resourceAttributes: { $ref: `#/definitions/${A}.ResourceAttributes` },
    });
  });

  it('a subresource’s own kind that a message models (serviceaccounts/token’s TokenRequest) gets its schema, not a placeholder', () => {
    const token = {
      group: '',
      resource: 'serviceaccounts',
      subresource: 'token',
      responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
      verbs: ['create'],
    };
    const route = routesOf(ServiceAccount, 'v1', [token]).find((r) => r.path.endsWith('/token'));
    const T = 'io.k8s.api.authentication.v1';
    expect(route?.schemas?.[`${T}.TokenRequest`]?.properties?.spec).toEqual({ $ref: `#/components/schemas/${T}.TokenRequestSpec` });
    expect(route?.schemas?.[`${T}.TokenRequestSpec`]?.properties).toEqual({
      audiences: { type: 'array', items: { type: 'string' } },
      boundObjectRef: { $ref: `#/components/schemas/${T}.BoundObjectReference` },
      expirationSeconds: { type: 'integer', format: 'int64' },
    });
    expect(route?.schemas?.[`${T}.TokenRequestStatus`]?.properties?.expirationTimestamp).toEqual({
      $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time',
    });
  });
});

const execFileAsync = promisify(execFile);
const [kubectl] = kubectlBinaries(['kubectl']);

describe('kubectl explain of the reviews', () => {
  const start = testServers();
  let tmp = '';
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'kapi-openapi-virtual-'));
  });
  afterAll(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('explains a review’s fields from the served documents', { timeout: 60_000 }, async () => {
    const { url } = await start();
    await writePlainKubeconfig(join(tmp, 'kubeconfig'), url);
    const run = async (...args: string[]) =>
      (
        await execFileAsync(kubectl as string, ['--cache-dir', join(tmp, `cache-${args.join('-')}`), ...args], {
          env: { PATH: process.env.PATH ?? '', HOME: tmp, KUBECONFIG: join(tmp, 'kubeconfig') },
        })
      ).stdout.replace(/[ \t]+/g, ' ');
    const ssar = await run('explain', 'selfsubjectaccessreviews.spec.resourceAttributes');
    expect(ssar).toContain('GROUP: authorization.k8s.io');
    expect(ssar).toContain('KIND: SelfSubjectAccessReview');
    expect(ssar).toContain('FIELD: resourceAttributes <ResourceAttributes>');
    expect(ssar).toContain('verb <string>');
    expect(ssar).toContain('fieldSelector <FieldSelectorAttributes>');
    const sar = await run('explain', 'subjectaccessreviews.spec');
    expect(sar).toContain('KIND: SubjectAccessReview');
    expect(sar).toContain('extra <map[string][]string>');
    expect(sar).toContain('groups <[]string>');
  });
});
