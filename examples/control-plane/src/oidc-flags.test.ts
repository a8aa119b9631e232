import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oidcOptionsFromFlags } from './oidc-flags.ts';

describe('oidcOptionsFromFlags (kube-apiserver’s --oidc-* flags)', () => {
  const base = { 'oidc-issuer-url': 'https://issuer.example', 'oidc-client-id': 'kubernetes' };

  it('no issuer, no OIDC; issuer URL and client id only together; other --oidc-* flags need them', () => {
    expect(oidcOptionsFromFlags({})).toBeUndefined();
    expect(() => oidcOptionsFromFlags({ 'oidc-issuer-url': 'https://issuer.example' })).toThrow(
      'oidc-issuer-url and oidc-client-id must be specified together',
    );
    expect(() => oidcOptionsFromFlags({ 'oidc-client-id': 'k' })).toThrow('oidc-issuer-url and oidc-client-id must be specified together');
    expect(() => oidcOptionsFromFlags({ 'oidc-groups-claim': 'groups' })).toThrow(
      '--oidc-groups-claim needs --oidc-issuer-url and --oidc-client-id',
    );
  });

  it('maps every flag, keeps an empty or "-" prefix as given, splits signing algs and key=value claims', () => {
    expect(oidcOptionsFromFlags(base)).toEqual({ issuerURL: 'https://issuer.example', clientID: 'kubernetes' });
    const options = oidcOptionsFromFlags({
      ...base,
      'oidc-username-claim': 'email',
      'oidc-username-prefix': '-',
      'oidc-groups-claim': 'groups',
      'oidc-groups-prefix': 'oidc:',
      'oidc-required-claim': ['hd=example.com', 'a=b=c', '__proto__=x'],
      'oidc-signing-algs': 'RS256, ES256',
    });
    expect(options).toMatchObject({
      usernameClaim: 'email',
      usernamePrefix: '',
      groupsClaim: 'groups',
      groupsPrefix: 'oidc:',
      signingAlgorithms: ['RS256', 'ES256'],
    });
    // A claim named __proto__ is a claim like the others, not the object's prototype.
    expect(Object.entries(options?.requiredClaims ?? {})).toEqual([
      ['hd', 'example.com'],
      ['a', 'b=c'],
      ['__proto__', 'x'],
    ]);
    expect(oidcOptionsFromFlags({ ...base, 'oidc-username-prefix': '' })).not.toHaveProperty('usernamePrefix');
    expect(oidcOptionsFromFlags({ ...base, 'oidc-username-prefix': 'oidc:' })?.usernamePrefix).toBe('oidc:');
    expect(() => oidcOptionsFromFlags({ ...base, 'oidc-required-claim': ['novalue'] })).toThrow(
      '--oidc-required-claim must be key=value, not "novalue"',
    );
    expect(() => oidcOptionsFromFlags({ ...base, 'oidc-required-claim': ['=v'] })).toThrow('--oidc-required-claim must be key=value');
  });

  it('reads the CA file, and says so when it cannot', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kapi-oidc-flags-'));
    try {
      const path = join(dir, 'ca.pem');
      await writeFile(path, 'PEM');
      expect(oidcOptionsFromFlags({ ...base, 'oidc-ca-file': path })?.ca?.toString()).toBe('PEM');
      expect(() => oidcOptionsFromFlags({ ...base, 'oidc-ca-file': join(dir, 'missing.pem') })).toThrow(
        /^Failed to read the CA file: ENOENT/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
