import { describe, expect, it } from 'vitest';
import { Widget } from '../openapi/test-support/widget.ts';
import { json, testServers } from '../test-support/test-servers.ts';

/**
 * fieldValidation on json, merge and strategic patches, as kube's patchers apply it: the patch document's own repeated
 * keys (and a JSON patch's undeclared operation fields) are reported with the unknown fields of what the patch made —
 * a warning each with Warn (the default), one 422 Invalid `patch` with Strict — on the resource and its status.
 */

const start = testServers({ resources: [Widget] });
const W = '/apis/example.kapi.dev/v1/namespaces/default/widgets';

function patch(url: string, path: string, body: string, type: string): Promise<Response> {
  return fetch(`${url}${path}`, { method: 'PATCH', headers: { 'content-type': `application/${type}` }, body });
}
const warningsOf = (res: Response): string[] => (res.headers.get('warning') ?? '').split(/, (?=299)/).filter(Boolean);

async function widget(url: string): Promise<void> {
  const res = await fetch(`${url}${W}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1 } }),
  });
  expect(res.status).toBe(201);
}

describe('fieldValidation on patches', () => {
  it('a merge patch with a repeated key: a warning by default (the last value wins), 422 with Strict', async () => {
    const { url } = await start();
    await widget(url);
    const warned = await patch(url, `${W}/w`, '{"spec":{"replicas":2,"replicas":3}}', 'merge-patch+json');
    expect(warned.status).toBe(200);
    expect(warningsOf(warned)).toEqual(['299 - "duplicate field \\"spec.replicas\\""']);
    expect((await json(warned)).spec.replicas).toBe(3);
    const strict = await patch(url, `${W}/w?fieldValidation=Strict`, '{"spec":{"replicas":4,"replicas":5},"foo":1}', 'merge-patch+json');
    expect(strict.status).toBe(422);
    const status = await json(strict);
    expect(status.reason).toBe('Invalid');
    expect(status.details.causes[0].field).toBe('patch');
    expect(status.message).toMatch(
      /^ "" is invalid: patch: Invalid value: ".*": strict decoding error: duplicate field "spec.replicas", unknown field "foo"$/,
    );
    expect((await json(await fetch(`${url}${W}/w`))).spec.replicas).toBe(3);
  });

  it('a JSON patch: its operations’ undeclared fields and repeated keys, worded as kube’s jsonPatcher words them', async () => {
    const { url } = await start();
    await widget(url);
    const res = await patch(
      url,
      `${W}/w`,
      '[{"op":"replace","path":"/spec/replicas","value":2,"vaule":3,"op":"replace"}]',
      'json-patch+json',
    );
    expect(res.status).toBe(200);
    expect(warningsOf(res)).toEqual([
      '299 - "json patch duplicate field \\"[0].op\\""',
      '299 - "json patch unknown field \\"[0].vaule\\""',
    ]);
    const ignored = await patch(
      url,
      `${W}/w?fieldValidation=Ignore`,
      '[{"op":"replace","path":"/spec/replicas","value":3,"x":1}]',
      'json-patch+json',
    );
    expect(ignored.status).toBe(200);
    expect(ignored.headers.get('warning')).toBeNull();
  });

  it('a strategic merge patch of the status subresource: Strict refuses it showing the patch as Go prints it', async () => {
    const { url } = await start();
    await widget(url);
    const strict = await patch(
      url,
      `${W}/w/status?fieldValidation=Strict`,
      '{"status":{"replicas":1,"replicas":2}}',
      'strategic-merge-patch+json',
    );
    expect(strict.status).toBe(422);
    expect((await json(strict)).message).toBe(
      ' "" is invalid: patch: Invalid value: "map[status:map[replicas:2]]": strict decoding error: duplicate field "status.replicas"',
    );
    const warned = await patch(url, `${W}/w/status`, '{"status":{"replicas":1,"replicas":2}}', 'strategic-merge-patch+json');
    expect(warned.status).toBe(200);
    expect(warningsOf(warned)).toEqual(['299 - "duplicate field \\"status.replicas\\""']);
    expect((await json(warned)).status.replicas).toBe(2);
  });

  it('a patch of the scale subresource: the Scale’s undeclared fields and the patch’s repeated keys, as for any patch', async () => {
    const { url } = await start();
    await widget(url);
    const warned = await patch(
      url,
      `${W}/w/scale`,
      '{"spec":{"replicas":2,"replicas":3,"replica":4},"status":{"x":1}}',
      'merge-patch+json',
    );
    expect(warned.status).toBe(200);
    expect(warningsOf(warned)).toEqual([
      '299 - "duplicate field \\"spec.replicas\\""',
      '299 - "unknown field \\"spec.replica\\""',
      '299 - "unknown field \\"status.x\\""',
    ]);
    expect((await json(warned)).spec.replicas).toBe(3);
    const strict = await patch(
      url,
      `${W}/w/scale?fieldValidation=Strict`,
      '[{"op":"replace","path":"/spec/replicas","value":5},{"op":"add","path":"/spec/x","value":1}]',
      'json-patch+json',
    );
    expect(strict.status).toBe(422);
    expect((await json(strict)).message).toMatch(
      /^ "" is invalid: patch: Invalid value: "\{.*\\"kind\\":\\"Scale\\".*\}": strict decoding error: unknown field "spec.x"$/,
    );
    expect((await json(await fetch(`${url}${W}/w`))).spec.replicas).toBe(3);
    const ignored = await patch(url, `${W}/w/scale?fieldValidation=Ignore`, '{"spec":{"replicas":6,"replica":1}}', 'merge-patch+json');
    expect(ignored.status).toBe(200);
    expect(ignored.headers.get('warning')).toBeNull();
  });
});
