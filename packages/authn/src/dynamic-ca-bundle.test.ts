import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, httpsServer, type Issued, issue, makeCA } from '../test/pki.ts';
import { DynamicCABundle } from './dynamic-ca-bundle.ts';
import { X509Authenticator } from './x509.ts';

const changed = (bundle: DynamicCABundle): Promise<void> =>
  new Promise((resolve) => {
    const off = bundle.onChange(() => {
      off();
      resolve();
    });
  });

describe('DynamicCABundle', () => {
  let dir: string;
  let caA: Issued;
  let caB: Issued;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kapi-dynamic-ca-'));
    [caA, caB] = await Promise.all([makeCA('ca-a'), makeCA('ca-b')]);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('a rewritten bundle takes effect without a restart: old certificates stop working, new ones start', async () => {
    const path = join(dir, 'client-ca.crt');
    await writeFile(path, caA.cert);
    const bundle = await DynamicCABundle.fromFile(path);
    const authn = new X509Authenticator({ ca: bundle });
    const srv = await httpsServer((headers, socket) => authn.authenticate({ headers, socket }));
    try {
      const [a, b] = await Promise.all([issue(caA, { cn: 'from-a' }), issue(caB, { cn: 'from-b' })]);
      expect((await get(srv.url, srv.ca, a)).result).toMatchObject({ user: { name: 'from-a' } });
      expect((await get(srv.url, srv.ca, b)).error).toMatch(/unknown authority/);

      // The file watcher sees the write (no reload() call here).
      const next = changed(bundle);
      await writeFile(path, caB.cert);
      await next;
      expect(bundle.pem()).toBe(caB.cert);
      expect((await get(srv.url, srv.ca, a)).error).toMatch(/unknown authority/);
      expect((await get(srv.url, srv.ca, b)).result).toMatchObject({ user: { name: 'from-b' } });
    } finally {
      bundle.close();
      await srv.close();
    }
  });

  it('an atomic replace (rename over the file) is seen, and the watch follows the new file', async () => {
    const path = join(dir, 'renamed-ca.crt');
    await writeFile(path, caA.cert);
    const bundle = await DynamicCABundle.fromFile(path, { checkIntervalMs: 200 });
    try {
      let next = changed(bundle);
      await writeFile(`${path}.tmp`, caB.cert);
      await rename(`${path}.tmp`, path);
      await next;
      expect(bundle.pem()).toBe(caB.cert);
      next = changed(bundle);
      await writeFile(path, caA.cert + caB.cert);
      await next;
      expect(bundle.certificates().map((c) => c.subject)).toEqual(['CN=ca-a', 'CN=ca-b']);
    } finally {
      bundle.close();
    }
  });

  it('a file that turns invalid keeps the last good bundle and reports the error; identical content is no change', async () => {
    const path = join(dir, 'broken-ca.crt');
    await writeFile(path, caA.cert);
    const errors: Error[] = [];
    const bundle = await DynamicCABundle.fromFile(path, { onError: (e) => errors.push(e), checkIntervalMs: 3_600_000 });
    try {
      await writeFile(path, 'not a certificate');
      expect(await bundle.reload()).toBe(false);
      expect(bundle.pem()).toBe(caA.cert);
      expect(errors.at(-1)?.message).toBe(`${path}: data does not contain any valid RSA or ECDSA certificates`);
      await writeFile(path, caA.cert);
      await bundle.reload();
      expect(await bundle.reload()).toBe(false);
      await writeFile(path, caB.cert);
      await bundle.reload();
      expect(bundle.pem()).toBe(caB.cert);
    } finally {
      bundle.close();
    }
  });

  it('a missing or invalid file at start is an error', async () => {
    await expect(DynamicCABundle.fromFile(join(dir, 'absent.crt'))).rejects.toThrow(/ENOENT/);
    await writeFile(join(dir, 'empty.crt'), '');
    await expect(DynamicCABundle.fromFile(join(dir, 'empty.crt'))).rejects.toThrow('does not contain any valid');
  });
});
