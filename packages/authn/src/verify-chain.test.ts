import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeCA, selfIssuedTangle } from '../test/pki.ts';
import { verifyCertificateChain } from './verify-chain.ts';

describe('verifyCertificateChain', () => {
  it('bounds the signature checks a client can cause with intermediates that all issue each other', async () => {
    const { tangle, leaf } = await selfIssuedTangle(12);
    const root = new X509Certificate((await makeCA('unrelated')).cert);
    const started = performance.now();
    expect(() =>
      verifyCertificateChain(
        new X509Certificate(leaf),
        tangle.map((p) => new X509Certificate(p)),
        [root],
        Date.now(),
      ),
    ).toThrow('x509: signature check attempts limit reached while verifying certificate chain');
    // 100 ECDSA verifications: well under a second even on a slow machine (12! paths would never end).
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('a few intermediates that issue each other still end in "unknown authority"', async () => {
    const { tangle, leaf } = await selfIssuedTangle(2);
    const root = new X509Certificate((await makeCA('unrelated')).cert);
    expect(() =>
      verifyCertificateChain(
        new X509Certificate(leaf),
        tangle.map((p) => new X509Certificate(p)),
        [root],
        Date.now(),
      ),
    ).toThrow('x509: certificate signed by unknown authority');
  });
});
