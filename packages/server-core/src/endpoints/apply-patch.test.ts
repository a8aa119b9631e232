import { ConfigMap, Namespace } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { testServers } from '../test-support/test-servers.ts';

/** Server-side apply over HTTP: application/apply-patch+yaml, PatchOptions (fieldManager, force), kube's answers. */

const start = testServers({ resources: [Namespace, ConfigMap] });

interface Answer {
  status: number;
  body: {
    message?: string;
    reason?: string;
    details?: { causes?: unknown[] };
    data?: Record<string, string>;
    metadata?: { managedFields?: { manager: string; operation: string }[]; resourceVersion?: string };
  };
}

async function call(url: string, method: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, { method, headers: { 'Content-Type': 'application/json', ...headers }, body });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
const yaml = (data: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: "${v}"`)
    .join('\n')}\n`;

describe('PATCH application/apply-patch+yaml', () => {
  it('creates (201), conflicts (409 with FieldManagerConflict causes), force takes over; managers from fieldManager or the User-Agent', async () => {
    const { url } = await start();
    await call(`${url}/api/v1/namespaces`, 'POST', JSON.stringify({ metadata: { name: 'default' } }));
    const cms = `${url}/api/v1/namespaces/default/configmaps`;

    const created = await call(`${cms}/c?fieldManager=alice`, 'PATCH', yaml({ a: '1' }), APPLY);
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ a: '1' });
    expect(created.body.metadata?.managedFields?.map((e) => [e.manager, e.operation])).toEqual([['alice', 'Apply']]);

    // A merge patch without fieldManager: the manager is the User-Agent's prefix.
    const merged = await call(`${cms}/c`, 'PATCH', JSON.stringify({ data: { b: '2' } }), {
      'Content-Type': 'application/merge-patch+json',
      'User-Agent': 'kubectl/v1.31.0 (linux/amd64) kubernetes/abcdef',
    });
    expect(merged.status).toBe(200);
    expect(merged.body.metadata?.managedFields?.map((e) => [e.manager, e.operation])).toEqual([
      ['alice', 'Apply'],
      ['kubectl', 'Update'],
    ]);

    const conflict = await call(`${cms}/c?fieldManager=bob`, 'PATCH', yaml({ a: '1', b: '3' }), APPLY);
    expect(conflict.status).toBe(409);
    expect(conflict.body.reason).toBe('Conflict');
    expect(conflict.body.message).toBe('Apply failed with 1 conflict: conflict with "kubectl" using v1: .data.b');
    expect(conflict.body.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl" using v1', field: '.data.b' },
    ]);

    const forced = await call(`${cms}/c?fieldManager=bob&force=true`, 'PATCH', yaml({ a: '1', b: '3' }), APPLY);
    expect(forced.status).toBe(200);
    expect(forced.body.data).toEqual({ a: '1', b: '3' });

    // JSON is YAML: client libraries send apply patches as JSON.
    const json = await call(
      `${cms}/c?fieldManager=alice`,
      'PATCH',
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }),
      APPLY,
    );
    expect(json.status).toBe(200);
  });

  it('PatchOptions as kube validates them: fieldManager required for apply, force only for apply', async () => {
    const { url } = await start();
    await call(`${url}/api/v1/namespaces`, 'POST', JSON.stringify({ metadata: { name: 'default' } }));
    const cms = `${url}/api/v1/namespaces/default/configmaps`;
    const missing = await call(`${cms}/c`, 'PATCH', yaml({ a: '1' }), APPLY);
    expect(missing.status).toBe(422);
    expect(missing.body.message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const force = await call(`${cms}/c?force=true`, 'PATCH', '{}', { 'Content-Type': 'application/merge-patch+json' });
    expect(force.status).toBe(422);
    expect(force.body.message).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    const wrongKind = await call(`${cms}/c?fieldManager=m`, 'PATCH', 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: c\n', APPLY);
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.message).toBe('invalid object type: /v1, Kind=Secret');
  });

  // kube's applyPatcher (fieldvalidation_test.go's apply cases): repeated keys are decoded leniently (the last wins),
  // then refused under Strict with go-yaml's strict words, one warning each under Warn (the default), none under Ignore.
  it('fieldValidation on an apply patch concerns repeated keys: Strict 400, Warn and the default warn, Ignore is silent', async () => {
    const { url } = await start();
    await call(`${url}/api/v1/namespaces`, 'POST', JSON.stringify({ metadata: { name: 'default' } }));
    const cms = `${url}/api/v1/namespaces/default/configmaps`;
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n  b: "2"\n  a: "3"\n';
    const patch = (q: string, text = body) =>
      fetch(`${cms}/c?fieldManager=m${q}`, { method: 'PATCH', headers: APPLY, body: text }).then(async (res) => ({
        status: res.status,
        warning: res.headers.get('warning'),
        body: (await res.json()) as Answer['body'],
      }));

    const strict = await patch('&fieldValidation=Strict');
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe(
      'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 8: key "a" already set in map',
    );
    expect((await fetch(`${cms}/c`)).status).toBe(404);

    const warned = await patch('');
    expect(warned.status).toBe(201);
    expect(warned.warning).toBe('299 - "line 8: key \\"a\\" already set in map"');
    expect(warned.body.data).toEqual({ a: '3', b: '2' });
    expect((await patch('&fieldValidation=Warn')).warning).toBe('299 - "line 8: key \\"a\\" already set in map"');
    const ignored = await patch('&fieldValidation=Ignore');
    expect(ignored.status).toBe(200);
    expect(ignored.warning).toBeNull();

    // JSON is YAML: its repeated keys are reported the same way, with their line.
    const json = await patch(
      '&fieldValidation=Strict',
      '{"apiVersion": "v1", "kind": "ConfigMap",\n"metadata": {"name": "c"}, "kind": "ConfigMap"}',
    );
    expect(json.status).toBe(400);
    expect(json.body.message).toBe(
      'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 2: key "kind" already set in map',
    );
  });
});
