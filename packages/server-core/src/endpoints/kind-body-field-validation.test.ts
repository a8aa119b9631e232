import { describe, expect, it } from 'vitest';
import { Widget } from '../openapi/test-support/widget.ts';
import { json, testServers } from '../test-support/test-servers.ts';

/**
 * fieldValidation on the bodies of kinds served by code rather than a Store (the reviews, Scale, TokenRequest), as
 * kube's create and update handlers apply it through their strict decoder: fields the Go type does not declare and
 * repeated keys are refused in one 400 with Strict (what kubectl sends), a warning each with Warn (the default), and
 * nothing with Ignore. The body is otherwise served as before.
 */

const start = testServers({ resources: [Widget] });
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const WIDGETS = '/apis/example.kapi.dev/v1/namespaces/default/widgets';

function send(url: string, method: string, path: string, body: string, contentType = 'application/json'): Promise<Response> {
  return fetch(`${url}${path}`, { method, headers: { 'content-type': contentType }, body });
}

const review = JSON.stringify({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SelfSubjectAccessReview',
  metadata: { colour: 'red' },
  spec: { resourceAttributes: { verb: 'get', resource: 'widgets', namespace: 'default', verbb: 'list' }, foo: 1 },
});
const warningsOf = (res: Response): string[] => (res.headers.get('warning') ?? '').split(/, (?=299)/).filter(Boolean);

describe('fieldValidation on the bodies of virtual resources and kind subresources', () => {
  it('a review: Warn (default) answers it with a warning per undeclared field', async () => {
    const { url } = await start();
    const res = await send(url, 'POST', SSAR, review);
    expect(res.status).toBe(201);
    expect(warningsOf(res)).toEqual([
      '299 - "unknown field \\"metadata.colour\\""',
      '299 - "unknown field \\"spec.resourceAttributes.verbb\\""',
      '299 - "unknown field \\"spec.foo\\""',
    ]);
    // Answered as Go decoded it: without the fields its type lacks.
    const answer = await json(res);
    expect(answer.metadata).toEqual({ creationTimestamp: null });
    expect(answer.spec).toEqual({ resourceAttributes: { verb: 'get', resource: 'widgets', namespace: 'default' } });
    expect(answer.status).toEqual({ allowed: true });
  });

  it('a review: Strict refuses it in kube’s words, Ignore says nothing', async () => {
    const { url } = await start();
    const strict = await send(url, 'POST', `${SSAR}?fieldValidation=Strict`, review);
    expect(strict.status).toBe(400);
    expect((await json(strict)).message).toBe(
      'SelfSubjectAccessReview in version "v1" cannot be handled as a SelfSubjectAccessReview: strict decoding error: ' +
        'unknown field "metadata.colour", unknown field "spec.resourceAttributes.verbb", unknown field "spec.foo"',
    );
    const ignore = await send(url, 'POST', `${SSAR}?fieldValidation=Ignore`, review);
    expect(ignore.status).toBe(201);
    expect(ignore.headers.get('warning')).toBeNull();
  });

  it('repeated keys of a JSON body are duplicate fields; a YAML body is checked for undeclared fields too', async () => {
    const { url } = await start();
    const dup =
      '{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"nonResourceAttributes":{"path":"/a","path":"/healthz","verb":"get"}}}';
    const res = await send(url, 'POST', SSAR, dup);
    expect(res.status).toBe(201);
    expect(warningsOf(res)).toEqual(['299 - "duplicate field \\"spec.nonResourceAttributes.path\\""']);
    const strict = await send(url, 'POST', `${SSAR}?fieldValidation=Strict`, dup);
    expect(strict.status).toBe(400);
    expect((await json(strict)).message).toContain('strict decoding error: duplicate field "spec.nonResourceAttributes.path"');
    const yaml =
      'apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\nspec:\n  nonResourceAttributes: {path: /healthz, verb: get, verbs: [get]}\n';
    const y = await send(url, 'POST', `${SSAR}?fieldValidation=Strict`, yaml, 'application/yaml');
    expect(y.status).toBe(400);
    expect((await json(y)).message).toContain('strict decoding error: unknown field "spec.nonResourceAttributes.verbs"');
  });

  it('a well-formed review (what kubectl auth can-i sends, and a SubjectAccessReview with extra) gets no warning', async () => {
    const { url } = await start();
    const ok = await send(
      url,
      'POST',
      `${SSAR}?fieldValidation=Strict`,
      JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        metadata: {},
        spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } },
        status: { allowed: false },
      }),
    );
    expect(ok.status).toBe(201);
    expect(ok.headers.get('warning')).toBeNull();
    const sar = await send(
      url,
      'POST',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews?fieldValidation=Strict',
      JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'carol', extra: { scopes: ['a'] }, nonResourceAttributes: { path: '/x', verb: 'get' } },
      }),
    );
    expect(sar.status).toBe(201);
  });

  it('a Scale PUT: an undeclared field is a warning by default and a 400 with Strict; the replicas are written only when accepted', async () => {
    const { url } = await start();
    const created = await send(
      url,
      'POST',
      WIDGETS,
      JSON.stringify({ apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1 } }),
    );
    expect(created.status).toBe(201);
    const scale = (replicas: number) =>
      JSON.stringify({
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'w', namespace: 'default' },
        spec: { replicas, replica: replicas },
      });
    const strict = await send(url, 'PUT', `${WIDGETS}/w/scale?fieldValidation=Strict`, scale(5));
    expect(strict.status).toBe(400);
    expect((await json(strict)).message).toBe(
      'Scale in version "v1" cannot be handled as a Scale: strict decoding error: unknown field "spec.replica"',
    );
    const warned = await send(url, 'PUT', `${WIDGETS}/w/scale`, scale(3));
    expect(warned.status).toBe(200);
    expect(warningsOf(warned)).toEqual(['299 - "unknown field \\"spec.replica\\""']);
    expect((await json(await fetch(`${url}${WIDGETS}/w`))).spec.replicas).toBe(3);
  });
});
