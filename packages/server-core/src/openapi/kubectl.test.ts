import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ConfigMap, Event, Namespace, Scheme, Secret } from '@kapi/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries, writePlainKubeconfig } from '../../../../scripts/kubectl-binaries.ts';
import { readRequestBody } from '../filters/body-limit.ts';
import { compose } from '../filters/compose.ts';
import type { Filter } from '../filters/context.ts';
import { type Listening, listen } from '../filters/serve.ts';
import { MIME_V2_PROTOBUF, openAPIHandler } from './handler.ts';
import { discoveryRoute } from './test-support/discovery-route.ts';
import { Widget } from './test-support/widget.ts';

/**
 * The real kubectl against the OpenAPI handler plus test-only discovery: `kubectl explain` over OpenAPI v3 (the default
 * since 1.27) and over v2 protobuf (`--output=plaintext-openapiv2`), and `kubectl create` detecting server-side field
 * validation from the v3 document.
 */

const execFileAsync = promisify(execFile);

const binaries = kubectlBinaries(['kubectl', 'kubectl.1.27', 'kubectl.1.33']);

interface Seen {
  method: string;
  path: string;
  query: string;
  accept: string;
}

describe('kubectl against the OpenAPI handler', () => {
  const scheme = new Scheme().add(Namespace, ConfigMap, Secret, Event, Widget);
  const seen: Seen[] = [];
  let server: Listening;
  let tmp: string;

  const record: Filter = async (ctx, next) => {
    seen.push({ method: ctx.req.method ?? '', path: ctx.url.pathname, query: ctx.url.search, accept: ctx.req.headers.accept ?? '' });
    return next();
  };
  // Stands in for the resource handler: a create that echoes the object.
  const createWidgets: Filter = async (ctx, next) => {
    if (ctx.req.method !== 'POST' || ctx.url.pathname !== '/apis/example.kapi.dev/v1/namespaces/default/widgets') return next();
    const obj = JSON.parse((await readRequestBody(ctx)).toString()) as { metadata: Record<string, unknown> };
    obj.metadata = { ...obj.metadata, namespace: 'default', uid: 'u1', resourceVersion: '1' };
    ctx.res.statusCode = 201;
    ctx.res.setHeader('Content-Type', 'application/json');
    ctx.res.end(JSON.stringify(obj));
  };

  beforeAll(async () => {
    server = await listen(compose([record, openAPIHandler(() => scheme), createWidgets], discoveryRoute(scheme)));
    tmp = await mkdtemp(join(tmpdir(), 'kapi-openapi-kubectl-'));
    await writePlainKubeconfig(join(tmp, 'kubeconfig'), `${server.url}`);
  });
  afterAll(async () => {
    await server?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  let run = 0;
  async function kubectl(bin: string, ...args: string[]): Promise<string> {
    // A fresh cache directory per run, so every call really fetches the documents.
    const cache = join(tmp, `cache-${run++}`);
    const { stdout } = await execFileAsync(bin, ['--cache-dir', cache, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: tmp, KUBECONFIG: join(tmp, 'kubeconfig') },
    });
    return stdout;
  }
  const squash = (s: string): string => s.replace(/[ \t]+/g, ' ');

  for (const bin of binaries) {
    const name = bin.slice(bin.lastIndexOf('/') + 1);

    it(`${name} explain widgets (OpenAPI v3)`, { timeout: 60_000 }, async () => {
      const out = squash(await kubectl(bin, 'explain', 'widgets'));
      expect(out).toContain('GROUP: example.kapi.dev');
      expect(out).toContain('KIND: Widget');
      expect(out).toContain('VERSION: v1');
      expect(out).toContain('A Widget is a thing kapi serves in its tests.');
      expect(out).toContain('metadata <ObjectMeta>');
      expect(out).toContain('spec <Object> -required-');
      expect(out).toContain('What the widget should look like.');
      expect(out).toContain('status <Object>');
      expect(seen.some((s) => s.path === '/openapi/v3/apis/example.kapi.dev/v1' && s.query.startsWith('?hash='))).toBe(true);
    });

    it(`${name} explain widgets.spec and widgets.metadata.name`, { timeout: 60_000 }, async () => {
      const spec = squash(await kubectl(bin, 'explain', 'widgets.spec'));
      expect(spec).toContain('FIELD: spec <Object>');
      expect(spec).toContain('replicas <integer>');
      expect(spec).toContain('How many widgets to run.');
      expect(spec).toContain('selector <Object>');
      expect(spec).toContain('Which pods belong to the widget.');
      const metaName = squash(await kubectl(bin, 'explain', 'widgets.metadata.name'));
      expect(metaName).toContain('FIELD: name <string>');
      expect(metaName).toContain('Name must be unique within a namespace.');
    });

    it(`${name} explain configmaps`, { timeout: 60_000 }, async () => {
      const out = squash(await kubectl(bin, 'explain', 'configmaps'));
      expect(out).toContain('KIND: ConfigMap');
      expect(out).toContain('VERSION: v1');
      expect(out).toContain('data <map[string]string>');
      expect(out).toContain('immutable <boolean>');
    });

    it(`${name} explain --output=plaintext-openapiv2 widgets (OpenAPI v2 protobuf)`, { timeout: 60_000 }, async () => {
      seen.length = 0;
      const out = squash(await kubectl(bin, 'explain', '--output=plaintext-openapiv2', 'widgets'));
      expect(out).toContain('KIND: Widget');
      expect(out).toContain('VERSION: example.kapi.dev/v1');
      expect(out).toContain('A Widget is a thing kapi serves in its tests.');
      expect(out).toContain('spec <Object> -required-');
      expect(seen.some((s) => s.path === '/openapi/v2' && s.accept.includes(MIME_V2_PROTOBUF))).toBe(true);
      const spec = squash(await kubectl(bin, 'explain', '--output=plaintext-openapiv2', 'widgets.spec.replicas'));
      expect(spec).toContain('FIELD: replicas <integer>');
      expect(spec).toContain('How many widgets to run.');
    });

    // kubectl always sends fieldValidation; what the v3 document decides (QueryParamVerifierV3 on the PATCH operation)
    // is whether kubectl trusts the server with it or validates client-side first, which would refuse spec.colour.
    it(`${name} create finds fieldValidation in the v3 document and leaves validation to the server`, { timeout: 60_000 }, async () => {
      seen.length = 0;
      const file = join(tmp, 'widget.yaml');
      await writeFile(file, 'apiVersion: example.kapi.dev/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  replicas: 2\n  colour: red\n');
      const out = await kubectl(bin, 'create', '--validate=strict', '-f', file);
      expect(out).toContain('widget.example.kapi.dev/w1 created');
      const post = seen.find((s) => s.method === 'POST');
      expect(post?.path).toBe('/apis/example.kapi.dev/v1/namespaces/default/widgets');
      expect(new URLSearchParams(post?.query).get('fieldValidation')).toBe('Strict');
    });
  }
});
