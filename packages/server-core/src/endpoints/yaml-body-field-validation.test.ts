import { ConfigMap, Namespace } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { Widget } from '../openapi/test-support/widget.ts';
import { json, testServers } from '../test-support/test-servers.ts';

/**
 * A YAML body's repeated keys, as kube's decoders treat them: sigs.k8s.io/yaml converts the body leniently (a repeated
 * key's last value wins) and, under fieldValidation Strict or Warn, its strict conversion's error joins the body's
 * other strict errors — one 400 with Strict (`… strict decoding error: error converting YAML to JSON: yaml: unmarshal
 * errors:\n  line 7: key "a" already set in map, unknown field "colour"`), a warning per repeated key with Warn (the
 * default: kube's addStrictDecodingWarnings splits the YAML error into its lines), nothing with Ignore.
 */

const start = testServers({ resources: [Namespace, ConfigMap, Widget] });
const CMS = '/api/v1/namespaces/default/configmaps';
const WIDGETS = '/apis/example.kapi.dev/v1/namespaces/default/widgets';

function send(url: string, method: string, path: string, body: string): Promise<Response> {
  return fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/yaml' }, body });
}

const warningsOf = (res: Response): string[] => (res.headers.get('warning') ?? '').split(/, (?=299)/).filter(Boolean);

const configMap = (name: string, value: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n  a: "${value}"\ncolour: red\n`;

const STRICT_CM =
  'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: error converting YAML to JSON: ' +
  'yaml: unmarshal errors:\n  line 7: key "a" already set in map, unknown field "colour"';

describe('repeated keys of a YAML body', () => {
  it('create: the last value is kept, and Warn (the default) answers a warning per repeat before the unknown fields', async () => {
    const { url } = await start();
    const res = await send(url, 'POST', CMS, configMap('warned', '2'));
    expect(res.status).toBe(201);
    expect(warningsOf(res)).toEqual(['299 - "line 7: key \\"a\\" already set in map"', '299 - "unknown field \\"colour\\""']);
    expect((await json(res)).data).toEqual({ a: '2' });
    // Two repeats, one of them nested deeper: each its own warning, in the order go-yaml meets them.
    const two = await send(
      url,
      'POST',
      CMS,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n  name: two\ndata:\n  b: x\n  b: y\n',
    );
    expect(two.status).toBe(201);
    expect(warningsOf(two)).toEqual([
      '299 - "line 5: key \\"name\\" already set in map"',
      '299 - "line 8: key \\"b\\" already set in map"',
    ]);
  });

  it('create: Strict refuses them in one 400 with the unknown fields, storing nothing; Ignore says nothing', async () => {
    const { url } = await start();
    const strict = await send(url, 'POST', `${CMS}?fieldValidation=Strict`, configMap('strict', '2'));
    expect(strict.status).toBe(400);
    expect(await json(strict)).toMatchObject({ reason: 'BadRequest', message: STRICT_CM });
    expect((await fetch(`${url}${CMS}/strict`)).status).toBe(404);
    const ignored = await send(url, 'POST', `${CMS}?fieldValidation=Ignore`, configMap('ignored', '3'));
    expect(ignored.status).toBe(201);
    expect(ignored.headers.get('warning')).toBeNull();
    expect((await json(ignored)).data).toEqual({ a: '3' });
  });

  it('update, and a PUT of the status subresource: the same', async () => {
    const { url } = await start();
    expect((await send(url, 'POST', CMS, configMap('u', '1'))).status).toBe(201);
    const strict = await send(url, 'PUT', `${CMS}/u?fieldValidation=Strict`, configMap('u', '2'));
    expect(strict.status).toBe(400);
    expect((await json(strict)).message).toBe(STRICT_CM);
    const warned = await send(url, 'PUT', `${CMS}/u`, configMap('u', '2'));
    expect(warned.status).toBe(200);
    expect(warningsOf(warned)).toEqual(['299 - "line 7: key \\"a\\" already set in map"', '299 - "unknown field \\"colour\\""']);
    expect((await json(warned)).data).toEqual({ a: '2' });

    // A custom kind's update names the resourceVersion it replaces.
    let rv = '';
    const widget = (replicas: number) =>
      `apiVersion: example.kapi.dev/v1\nkind: Widget\nmetadata:\n  name: w\n  resourceVersion: "${rv}"\nspec:\n  replicas: 1\nstatus:\n  replicas: 1\n  replicas: ${replicas}\n`;
    const created = await send(url, 'POST', WIDGETS, widget(1).replace(/ {2}resourceVersion.*\n/, ''));
    expect(created.status).toBe(201);
    rv = (await json(created)).metadata.resourceVersion;
    const status = await send(url, 'PUT', `${WIDGETS}/w/status?fieldValidation=Strict`, widget(2));
    expect(status.status).toBe(400);
    expect((await json(status)).message).toBe(
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: error converting YAML to JSON: ' +
        'yaml: unmarshal errors:\n  line 10: key "replicas" already set in map',
    );
    const written = await send(url, 'PUT', `${WIDGETS}/w/status`, widget(2));
    expect(written.status).toBe(200);
    expect(warningsOf(written)).toEqual(['299 - "line 10: key \\"replicas\\" already set in map"']);
    expect((await json(written)).status).toEqual({ replicas: 2 });
  });

  it('a review and a Scale, decoded by their own handlers: the same', async () => {
    const { url } = await start();
    const review =
      'apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\nspec:\n  nonResourceAttributes:\n    path: /a\n    path: /healthz\n    verb: get\n';
    const ssar = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
    const warned = await send(url, 'POST', ssar, review);
    expect(warned.status).toBe(201);
    expect(warningsOf(warned)).toEqual(['299 - "line 6: key \\"path\\" already set in map"']);
    expect((await json(warned)).spec.nonResourceAttributes.path).toBe('/healthz');
    const strict = await send(url, 'POST', `${ssar}?fieldValidation=Strict`, review);
    expect(strict.status).toBe(400);
    expect((await json(strict)).message).toBe(
      'SelfSubjectAccessReview in version "v1" cannot be handled as a SelfSubjectAccessReview: strict decoding error: ' +
        'error converting YAML to JSON: yaml: unmarshal errors:\n  line 6: key "path" already set in map',
    );

    expect(
      (await send(url, 'POST', WIDGETS, 'apiVersion: example.kapi.dev/v1\nkind: Widget\nmetadata:\n  name: s\nspec: {replicas: 1}\n'))
        .status,
    ).toBe(201);
    const scale = (replicas: number) =>
      `apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: s\n  namespace: default\nspec:\n  replicas: 1\n  replicas: ${replicas}\n`;
    const refused = await send(url, 'PUT', `${WIDGETS}/s/scale?fieldValidation=Strict`, scale(4));
    expect(refused.status).toBe(400);
    expect((await json(refused)).message).toContain(
      'strict decoding error: error converting YAML to JSON: yaml: unmarshal errors:\n  line 8: key "replicas" already set in map',
    );
    const scaled = await send(url, 'PUT', `${WIDGETS}/s/scale`, scale(4));
    expect(scaled.status).toBe(200);
    expect(warningsOf(scaled)).toEqual(['299 - "line 8: key \\"replicas\\" already set in map"']);
    expect((await json(scaled)).spec).toEqual({ replicas: 4 });
  });
});
