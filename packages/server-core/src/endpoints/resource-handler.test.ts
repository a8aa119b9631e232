import { request } from 'node:http';
import { ConfigMap, Namespace, Secret } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Widget } from '../../../../examples/control-plane/src/widget.ts';
import { type Listening, listen } from '../filters/serve.ts';
import { GenericAPIServer } from '../server/generic-api-server.ts';

// The REST handler's routes and request decoding, over HTTP. Requests go out through node:http with the path sent as
// written: fetch would resolve "." and ".." segments before sending.

interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a Status or an object, checked field by field
  body: any;
}

let server: GenericAPIServer;
let http: Listening;

function send(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Reply> {
  const url = new URL(http.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers: { 'content-type': contentType } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      // A watch answers JSON lines, kept as text.
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text && !text.includes('\n{') ? JSON.parse(text) : text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
  });
}

const CMS = '/api/v1/namespaces/default/configmaps';
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });

beforeAll(async () => {
  server = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, ConfigMap, Secret, Widget] });
  await server.start();
  http = await listen(server.handler);
  expect((await send('POST', CMS, cm('x'))).status).toBe(201);
});
afterAll(async () => {
  await http.close();
  await server.shutdown();
});

describe('routes', () => {
  const notAllowed = {
    kind: 'Status',
    status: 'Failure',
    message: 'the server does not allow this method on the requested resource',
    reason: 'MethodNotAllowed',
    code: 405,
  };

  it.each([
    ['PUT', CMS, cm('x'), 'application/json'],
    ['PATCH', CMS, {}, 'application/merge-patch+json'],
    // The route is refused before the body or its content type is looked at.
    ['PATCH', CMS, 'not json', 'text/plain'],
    ['POST', `${CMS}/x`, cm('x'), 'application/json'],
    ['DELETE', '/api/v1/namespaces', undefined, 'application/json'],
    ['POST', '/api/v1/namespaces/default/status', {}, 'application/json'],
    ['GET', '/api/v1/namespaces/default/finalize', undefined, 'application/json'],
    ['PATCH', '/api/v1/namespaces/default/finalize', 'x', 'text/plain'],
    ['DELETE', '/apis/example.kapi.dev/v1/namespaces/default/widgets/w/status', undefined, 'application/json'],
    ['OPTIONS', CMS, undefined, 'application/json'],
  ])('%s %s is 405 MethodNotAllowed', async (method, path, body, contentType) => {
    const res = await send(method, path, body, contentType);
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject(notAllowed);
  });

  it('serves what the routes have: a list named by its field selector, an unknown subresource is 404', async () => {
    const named = await send('GET', `${CMS}?fieldSelector=metadata.name%3Dx`);
    expect(named.status).toBe(200);
    expect(named.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['x']);
    expect((await send('GET', `${CMS}/x/nope`)).status).toBe(404);
    expect((await send('DELETE', CMS)).status).toBe(200);
  });
});

describe('watch timeouts', () => {
  it('a negative timeoutSeconds has already expired: the watch ends at once, as kube-apiserver’s does', async () => {
    const started = Date.now();
    const res = await send('GET', `${CMS}?watch=1&timeoutSeconds=-1`);
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('a body of another kind', () => {
  it('is 400 BadRequest in the decoder’s words, as kube-apiserver answers', async () => {
    const secret = await send('POST', CMS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
    expect(secret.status).toBe(400);
    expect(secret.body).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      message: 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    });
    await send('POST', CMS, cm('k'));
    const put = await send('PUT', `${CMS}/k`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'k' } });
    expect(put.status).toBe(400);
    expect(put.body.reason).toBe('BadRequest');
  });

  it('stays 422 Invalid when a patch turns the object into another kind (kube’s patcher)', async () => {
    await send('POST', CMS, cm('p'));
    const res = await send('PATCH', `${CMS}/p`, { kind: 'Secret' }, 'application/merge-patch+json');
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
  });
});

describe('a PUT body that names no object or another one', () => {
  const nameless = (metadata: Record<string, unknown> | undefined) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { a: 'c' } });
  it.each([
    ['no metadata', JSON.stringify(nameless(undefined)), 'application/json', ''],
    ['no name', JSON.stringify(nameless({ namespace: 'default' })), 'application/json', ''],
    ['an empty name', JSON.stringify(nameless({ name: '' })), 'application/json', ''],
    ['another name', JSON.stringify(nameless({ name: 'y' })), 'application/json', 'y'],
    ['no name, as YAML', 'apiVersion: v1\nkind: ConfigMap\ndata: {a: c}\n', 'application/yaml', ''],
  ])('is 400 BadRequest with %s, as kube-apiserver’s checkName answers', async (_, body, contentType, objName) => {
    const before = await send('GET', `${CMS}/x`);
    const res = await send('PUT', `${CMS}/x`, body, contentType);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      code: 400,
      message: `the name of the object (${objName}) does not match the name on the URL (x)`,
    });
    // Nor is a nameless object created by a create-on-update PUT.
    expect((await send('PUT', `${CMS}/fresh`, body, contentType)).status).toBe(400);
    expect((await send('GET', `${CMS}/fresh`)).status).toBe(404);
    expect(await send('GET', `${CMS}/x`)).toEqual(before);
  });

  it('is 400 on a subresource too (namespace finalize)', async () => {
    const res = await send('PUT', '/api/v1/namespaces/default/finalize', { apiVersion: 'v1', kind: 'Namespace', spec: { finalizers: [] } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('the name of the object () does not match the name on the URL (default)');
  });
});

describe('a YAML body of more tokens than the bound', () => {
  it('is 400 BadRequest, the lexer stopping at the bound (3 MiB of `a: [a,a,…]` took 17 s of CPU)', async () => {
    const items = Math.floor((3 * 1024 * 1024 - 100) / 2);
    const body = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\nbinaryData: [${Array(items).fill('a').join(',')}]\n`;
    const res = await send('POST', CMS, body, 'application/yaml');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    expect(res.body.message).toMatch(/^error decoding YAML: the document has more than 500000 YAML tokens/);
  });
});

describe('names that are not one path segment', () => {
  it.each([
    ['GET', `${CMS}/..`],
    ['GET', `${CMS}/.`],
    ['GET', `${CMS}/%2e%2e`],
    ['GET', `${CMS}/%2E`],
    ['GET', `${CMS}/a%25b`],
    ['PUT', `${CMS}/..`],
    ['PATCH', `${CMS}/..`],
    ['DELETE', `${CMS}/..`],
    ['GET', '/api/v1/namespaces/../configmaps/x'],
    ['GET', '/api/v1/namespaces/%2e%2e/configmaps'],
    ['GET', '/api/v1/namespaces/./configmaps?watch=1'],
    ['POST', '/api/v1/namespaces/../configmaps'],
    ['DELETE', '/api/v1/namespaces/../configmaps'],
    ['GET', '/api/v1/namespaces/..'],
    ['PUT', '/api/v1/namespaces/../finalize'],
    ['GET', '/apis/example.kapi.dev/v1/namespaces/default/widgets/../status'],
  ])('%s %s is 400 BadRequest, never a 500', async (method, path) => {
    const patch = method === 'PATCH';
    const res = await send(
      method,
      path,
      method === 'GET' || method === 'DELETE' ? undefined : patch ? {} : cm('..'),
      patch ? 'application/merge-patch+json' : 'application/json',
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    expect(res.body.message).toMatch(/^(Name|Namespace) parameter invalid: "[^"]*": may not (be|contain) '/);
  });
});
