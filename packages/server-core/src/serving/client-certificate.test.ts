import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commonNameUser, EKU_CLIENT_AUTH, verifyCertificateChain } from '@kapi/authn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { clientCertificateAuthority, issueClientCertificate } from './client-certificate.ts';
import { kubeconfig } from './kubeconfig.ts';

describe('client CA of a data directory and the certificates it issues', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kapi-client-ca-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is created once (key 0600) and reused; its certificates verify for client auth as CN/O', async () => {
    const ca = await clientCertificateAuthority({ dir });
    expect((await stat(join(dir, 'client-ca.key'))).mode & 0o777).toBe(0o600);
    expect(ca.certPath).toBe(join(dir, 'client-ca.crt'));
    expect(await clientCertificateAuthority({ dir })).toEqual(ca);

    const admin = await issueClientCertificate(ca, { user: 'kapi-admin', groups: ['system:masters'] });
    const leaf = new X509Certificate(admin.cert);
    const chain = verifyCertificateChain(leaf, [], [new X509Certificate(ca.cert)], Date.now(), EKU_CLIENT_AUTH);
    expect(commonNameUser(chain)).toMatchObject({ name: 'kapi-admin', groups: ['system:masters'] });
    expect(leaf.checkPrivateKey(createPrivateKey(admin.key))).toBe(true);
    // Valid for a year from an hour ago.
    expect(Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)).toBe(365 * 86_400_000);
  });

  it('an expired CA is replaced', async () => {
    const old = await clientCertificateAuthority({ dir: join(dir, 'old'), now: () => Date.now() - 20 * 365 * 86_400_000 });
    const fresh = await clientCertificateAuthority({ dir: join(dir, 'old') });
    expect(fresh.cert).not.toBe(old.cert);
  });

  it('a kubeconfig user with a client certificate carries it as data fields', () => {
    const doc = parse(kubeconfig({ server: 'https://127.0.0.1:6443', ca: 'CA', clientCertificate: 'CERT', clientKey: 'KEY' }));
    expect(doc.users).toEqual([
      {
        name: 'kapi-admin',
        user: {
          'client-certificate-data': Buffer.from('CERT').toString('base64'),
          'client-key-data': Buffer.from('KEY').toString('base64'),
        },
      },
    ]);
  });
});
