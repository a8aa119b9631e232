import { describe, expect, it } from 'vitest';
import { serviceAccountOptionsFromFlags } from './service-account-flags.ts';

describe('service-account flags', () => {
  it('give the issuer, key files and the maximum expiration', () => {
    expect(serviceAccountOptionsFromFlags({})).toEqual({});
    expect(
      serviceAccountOptionsFromFlags({
        'service-account-issuer': 'https://kapi.example',
        'service-account-signing-key-file': '/k/sa.key',
        'service-account-key-file': ['/k/old.pub', '/k/older.pub'],
        'service-account-max-token-expiration': '24h',
      }),
    ).toEqual({
      serviceAccountIssuer: 'https://kapi.example',
      serviceAccountSigningKeyFile: '/k/sa.key',
      serviceAccountKeyFiles: ['/k/old.pub', '/k/older.pub'],
      serviceAccountMaxTokenExpirationSeconds: 86_400,
    });
    expect(serviceAccountOptionsFromFlags({ 'service-account-issuer': 'kapi' })).toEqual({ serviceAccountIssuer: 'kapi' });
  });

  it('refuse an issuer with a colon that is not a URL, and a maximum under 10 minutes', () => {
    expect(() => serviceAccountOptionsFromFlags({ 'service-account-issuer': 'https://bad host' })).toThrow('was not a valid URL');
    expect(() => serviceAccountOptionsFromFlags({ 'service-account-max-token-expiration': '5m' })).toThrow('at least 10 minutes');
    expect(() => serviceAccountOptionsFromFlags({ 'service-account-max-token-expiration': 'soon' })).toThrow('invalid duration');
  });
});
