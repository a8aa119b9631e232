import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeCA } from '../../../authn/test/pki.ts';
import {
  type AuthenticationInfo,
  authenticationInfoData,
  combineAuthenticationInfo,
  parseAuthenticationInfo,
} from './authentication-info.ts';

const none: AuthenticationInfo = {
  clientCA: '',
  requestHeaderCA: '',
  allowedNames: [],
  usernameHeaders: [],
  uidHeaders: [],
  groupHeaders: [],
  extraHeaderPrefixes: [],
};
const fingerprints = (pem: string): string[] =>
  (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((c) => new X509Certificate(c).fingerprint256);
const fp = (pem: string): string => new X509Certificate(pem).fingerprint256;

describe('the extension-apiserver-authentication data (kube clusterauthenticationtrust)', () => {
  it('writes client-ca-file alone without a request-header CA, and every requestheader key with one', async () => {
    const ca = await makeCA('client');
    expect(authenticationInfoData({ ...none, clientCA: ca.cert, usernameHeaders: ['X-Remote-User'] })).toEqual({
      'client-ca-file': ca.cert,
    });
    expect(authenticationInfoData({ ...none, requestHeaderCA: ca.cert, usernameHeaders: ['X-Remote-User'] })).toEqual({
      'requestheader-client-ca-file': ca.cert,
      'requestheader-allowed-names': '[]',
      'requestheader-username-headers': '["X-Remote-User"]',
      'requestheader-uid-headers': '[]',
      'requestheader-group-headers': '[]',
      'requestheader-extra-headers-prefix': '[]',
    });
  });

  it('joins what other servers published: lists without duplicates in order, certificates once, expired ones dropped', async () => {
    const [a, b, old] = await Promise.all([
      makeCA('a'),
      makeCA('b'),
      makeCA('old', { notBefore: new Date(Date.now() - 7200_000), notAfter: new Date(Date.now() - 600_000) }),
    ]);
    const existing = { ...none, clientCA: a.cert + old.cert, allowedNames: ['proxy-1'], usernameHeaders: ['X-Remote-User'] };
    const own = { ...none, clientCA: b.cert + a.cert, allowedNames: ['proxy-2', 'proxy-1'], usernameHeaders: ['X-Remote-User', 'X-User'] };
    const joined = combineAuthenticationInfo(existing, own);
    expect(fingerprints(joined.clientCA)).toEqual([fp(a.cert), fp(b.cert)]);
    expect(joined.allowedNames).toEqual(['proxy-1', 'proxy-2']);
    expect(joined.usernameHeaders).toEqual(['X-Remote-User', 'X-User']);
    expect(joined.requestHeaderCA).toBe('');
  });

  it('reads the data back; a list that is not a JSON array of strings is an error naming its key', async () => {
    const ca = await makeCA('rh');
    const data = authenticationInfoData({
      ...none,
      requestHeaderCA: ca.cert,
      allowedNames: ['front-proxy-client'],
      groupHeaders: ['X-Remote-Group'],
    });
    expect(parseAuthenticationInfo(data)).toMatchObject({
      requestHeaderCA: ca.cert,
      allowedNames: ['front-proxy-client'],
      groupHeaders: ['X-Remote-Group'],
    });
    expect(parseAuthenticationInfo(undefined)).toEqual(none);
    expect(() => parseAuthenticationInfo({ 'requestheader-allowed-names': 'front-proxy-client' })).toThrow(
      /^requestheader-allowed-names: /,
    );
    expect(() => parseAuthenticationInfo({ 'requestheader-group-headers': '[1]' })).toThrow(
      'requestheader-group-headers: not a JSON array of strings',
    );
  });
});
