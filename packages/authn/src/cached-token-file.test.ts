import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerTokenSource, CachedTokenFile } from './cached-token-file.ts';
import { webhookClientConfigOf } from './webhook-kubeconfig.ts';

/** client-go's cached file token source: a token file re-read once its minute (less 10 s leeway) is up. */
describe('CachedTokenFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kapi-token-file-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps a token 50 s, then reads the file again; keeps the last token when a read fails', async () => {
    const path = join(dir, 'token');
    await writeFile(path, '  first\n');
    let now = 0;
    const file = new CachedTokenFile(path, { now: () => now });
    expect(file.token()).toBe('first');
    await writeFile(path, 'second\n');
    now = 49_999;
    expect(file.token()).toBe('first');
    now = 50_000;
    expect(file.token()).toBe('second');
    await writeFile(path, '\n');
    now = 200_000;
    expect(file.token()).toBe('second');
    await rm(path);
    now = 400_000;
    expect(file.token()).toBe('second');
  });

  it('fails when the file was never read: missing, or empty as client-go says', async () => {
    expect(() => new CachedTokenFile(join(dir, 'none')).token()).toThrow(/ENOENT/);
    await writeFile(join(dir, 'empty'), '\n');
    expect(() => new CachedTokenFile(join(dir, 'empty')).token()).toThrow(`read empty token from file "${join(dir, 'empty')}"`);
  });

  it("a kubeconfig's tokenFile is read at once and followed; a token given beside it wins, as client-go", async () => {
    await writeFile(join(dir, 'kc-token'), 'from-file\n');
    const kubeconfig = (user: Record<string, unknown>) => ({
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }],
      users: [{ name: 'u', user }],
    });
    const config = webhookClientConfigOf(kubeconfig({ tokenFile: 'kc-token' }), dir);
    expect(config).toMatchObject({ token: 'from-file', tokenFile: join(dir, 'kc-token') });
    expect(bearerTokenSource(config)()).toBe('from-file');
    const both = webhookClientConfigOf(kubeconfig({ token: 'inline', tokenFile: 'kc-token' }), dir);
    expect(both.tokenFile).toBeUndefined();
    expect(bearerTokenSource(both)()).toBe('inline');
  });
});
