import { createPublicKey } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreateServiceAccountKey, serviceAccountKeySet, verificationKeyFromPEM } from './service-account-keys.ts';

describe('service-account keys', () => {
  it('are generated once into the data directory (mode 0600) and read back the next time', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kapi-sa-'));
    try {
      const path = join(dir, 'sa.key');
      const first = await loadOrCreateServiceAccountKey(path);
      expect(first).toContain('BEGIN PRIVATE KEY');
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect(await loadOrCreateServiceAccountKey(path)).toBe(first);
      expect(await readFile(path, 'utf8')).toBe(first);
      expect(serviceAccountKeySet(first).signing.alg).toBe('RS256');
      const ec = await loadOrCreateServiceAccountKey(join(dir, 'ec.key'), 'ES256');
      expect(serviceAccountKeySet(ec).signing.alg).toBe('ES256');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('accept a public key PEM or a private key PEM (its public half) as a verification key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kapi-sa-'));
    try {
      const pem = await loadOrCreateServiceAccountKey(join(dir, 'sa.key'));
      const spki = createPublicKey(pem).export({ type: 'spki', format: 'pem' }) as string;
      expect(verificationKeyFromPEM(spki).kid).toBe(verificationKeyFromPEM(pem).kid);
      expect(serviceAccountKeySet(pem, [spki]).verification).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
