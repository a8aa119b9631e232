import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientCertificateAuthority, issueClientCertificate } from '@kapi/server-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane } from './control-plane.ts';
import { FRONT_PROXY_CLIENT, frontProxyCredentials } from './front-proxy.ts';

describe("the control plane's front-proxy credentials", () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'kapi-front-proxy-'));
  });
  afterAll(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('makes a CA and a front-proxy-client certificate it signs once, and reissues the certificate for a new CA', async () => {
    const dir = join(tmp, 'fp');
    const first = await frontProxyCredentials(dir);
    const cert = new X509Certificate(first.cert);
    expect(cert.subject).toBe(`CN=${FRONT_PROXY_CLIENT}`);
    expect(cert.checkIssued(new X509Certificate(first.ca.cert))).toBe(true);
    expect(await readFile(join(dir, 'front-proxy-client.crt'), 'utf8')).toBe(first.cert);
    expect((await frontProxyCredentials(dir)).cert).toBe(first.cert);
    // A new CA (the old one removed) gets a certificate of its own.
    await writeFile(join(dir, 'client-ca.key'), 'not a key');
    const next = await frontProxyCredentials(dir);
    expect(next.ca.cert).not.toBe(first.ca.cert);
    expect(new X509Certificate(next.cert).checkIssued(new X509Certificate(next.ca.cert))).toBe(true);
  });

  it('--proxy-client-cert-file and --proxy-client-key-file replace the certificate the aggregator presents', async () => {
    const ca = await clientCertificateAuthority({ dir: join(tmp, 'own-ca') });
    const own = await issueClientCertificate(ca, { user: 'my-proxy' });
    await writeFile(join(tmp, 'proxy.crt'), own.cert);
    await writeFile(join(tmp, 'proxy.key'), own.key);
    const cp = await startControlPlane({
      port: 0,
      dataDir: join(tmp, 'data'),
      proxyClientCertFile: join(tmp, 'proxy.crt'),
      proxyClientKeyFile: join(tmp, 'proxy.key'),
    });
    try {
      expect(cp.proxyClient).toEqual(own);
    } finally {
      await cp.stop();
    }
  });
});
