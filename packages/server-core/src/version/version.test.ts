import { afterEach, describe, expect, it } from 'vitest';
import { compose } from '../filters/compose.ts';
import { type Listening, listen } from '../filters/serve.ts';
import { currentPlatform, kapiVersionInfo, type VersionInfo, versionHandler } from './version.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const fallthrough = async (ctx: { res: { statusCode: number; end(b: string): void } }) => {
  ctx.res.statusCode = 404;
  ctx.res.end('fallthrough');
};

describe('kapiVersionInfo', () => {
  it('defaults to Kubernetes 1.32 with a kapi prerelease', () => {
    expect(kapiVersionInfo()).toEqual({
      major: '1',
      minor: '32',
      gitVersion: 'v1.32.0-kapi.0.1.0',
      gitCommit: '',
      gitTreeState: '',
      buildDate: '1970-01-01T00:00:00Z',
      goVersion: process.version,
      compiler: 'node',
      platform: currentPlatform(),
    });
  });

  it('builds gitVersion from the options', () => {
    const v = kapiVersionInfo({ minor: '31', kapiVersion: '0.2.3', gitCommit: 'abc', gitTreeState: 'clean' });
    expect(v).toMatchObject({ major: '1', minor: '31', gitVersion: 'v1.31.0-kapi.0.2.3', gitCommit: 'abc', gitTreeState: 'clean' });
    expect(kapiVersionInfo({ gitVersion: 'v9.9.9' }).gitVersion).toBe('v9.9.9');
  });

  it('uses Go platform names', () => {
    expect(currentPlatform()).toMatch(/^[a-z0-9]+\/[a-z0-9]+$/);
    if (process.arch === 'x64') expect(currentPlatform().endsWith('/amd64')).toBe(true);
  });
});

describe('versionHandler', () => {
  it('serves GET /version as indented version.Info JSON in kube field order', async () => {
    srv = await listen(compose([versionHandler({ kapiVersion: '0.1.0', buildDate: '2025-01-02T03:04:05Z' })], fallthrough));
    const r = await fetch(`${srv.url}/version`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    const text = await r.text();
    const body = JSON.parse(text) as VersionInfo;
    expect(Object.keys(body)).toEqual([
      'major',
      'minor',
      'gitVersion',
      'gitCommit',
      'gitTreeState',
      'buildDate',
      'goVersion',
      'compiler',
      'platform',
    ]);
    expect(body).toMatchObject({ major: '1', minor: '32', gitVersion: 'v1.32.0-kapi.0.1.0', buildDate: '2025-01-02T03:04:05Z' });
    expect(text).toBe(JSON.stringify(body, null, 2));
    expect(text.startsWith('{\n  "major": "1",\n')).toBe(true);
  });

  it('serves a full VersionInfo as given', async () => {
    const info: VersionInfo = {
      major: '1',
      minor: '30',
      gitVersion: 'v1.30.0-kapi.1.0.0',
      gitCommit: 'deadbeef',
      gitTreeState: 'dirty',
      buildDate: '2024-05-06T07:08:09Z',
      goVersion: 'v22.12.0',
      compiler: 'node',
      platform: 'linux/arm64',
    };
    srv = await listen(compose([versionHandler(info)], fallthrough));
    expect(await (await fetch(`${srv.url}/version`)).json()).toEqual(info);
  });

  it('answers HEAD without a body and passes other paths and methods on', async () => {
    srv = await listen(compose([versionHandler()], fallthrough));
    const head = await fetch(`${srv.url}/version`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await fetch(`${srv.url}/version`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${srv.url}/version/`)).status).toBe(404);
    expect((await fetch(`${srv.url}/versions`)).status).toBe(404);
  });
});
