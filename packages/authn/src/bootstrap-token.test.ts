import type { Clock } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { type BootstrapSecret, BootstrapTokenAuthenticator } from './bootstrap-token.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const NOW = Date.parse('2026-01-01T00:00:00Z');
const clock: Clock = { now: () => NOW, setTimeout: () => ({}), clearTimeout: () => {} };

function secret(data: Record<string, string>, extra: Partial<BootstrapSecret> = {}): BootstrapSecret {
  return {
    type: 'bootstrap.kubernetes.io/token',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
    ...extra,
  };
}

const good = {
  'token-id': 'abcdef',
  'token-secret': '0123456789abcdef',
  'usage-bootstrap-authentication': 'true',
  expiration: '2026-01-02T00:00:00Z',
  'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
};

function authn(secrets: Record<string, BootstrapSecret>, apiAudiences?: string[]) {
  const asked: string[] = [];
  const a = new BootstrapTokenAuthenticator(
    {
      async getSecret(ns, name) {
        asked.push(`${ns}/${name}`);
        return secrets[name];
      },
    },
    { clock, ...(apiAudiences ? { apiAudiences } : {}) },
  );
  return { a, asked };
}

describe('BootstrapTokenAuthenticator', () => {
  it('authenticates <id>.<secret> as system:bootstrap:<id> in system:bootstrappers and the extra groups', async () => {
    const { a, asked } = authn({ 'bootstrap-token-abcdef': secret(good) });
    const r = await a.authenticate({ headers: { authorization: 'Bearer abcdef.0123456789abcdef' } });
    expect(r?.user).toEqual({
      name: 'system:bootstrap:abcdef',
      groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token'],
    });
    expect(asked).toEqual(['kube-system/bootstrap-token-abcdef']);
  });

  it('refuses a wrong secret, an expired token, usage not "true", a bad extra group, a wrong type, a deleting Secret', async () => {
    const cases: Record<string, BootstrapSecret> = {
      'bootstrap-token-wrongs': secret({ ...good, 'token-id': 'wrongs' }),
      'bootstrap-token-expird': secret({ ...good, 'token-id': 'expird', expiration: '2025-12-31T23:59:59Z' }),
      'bootstrap-token-badexp': secret({ ...good, 'token-id': 'badexp', expiration: 'tomorrow' }),
      'bootstrap-token-nousag': secret({ ...good, 'token-id': 'nousag', 'usage-bootstrap-authentication': 'false' }),
      'bootstrap-token-nokey0': secret({ ...good, 'token-id': 'nokey0', 'usage-bootstrap-authentication': '' }),
      'bootstrap-token-badgrp': secret({ ...good, 'token-id': 'badgrp', 'auth-extra-groups': 'system:masters' }),
      'bootstrap-token-badgr2': secret({ ...good, 'token-id': 'badgr2', 'auth-extra-groups': 'system:bootstrappers:ok,evil' }),
      'bootstrap-token-type00': { ...secret({ ...good, 'token-id': 'type00' }), type: 'Opaque' },
      'bootstrap-token-delete': secret({ ...good, 'token-id': 'delete' }, { metadata: { deletionTimestamp: '2025-12-31T00:00:00Z' } }),
      'bootstrap-token-otheri': secret({ ...good, 'token-id': 'differ' }),
    };
    const { a } = authn(cases);
    const tok = (id: string, s = '0123456789abcdef') => ({ headers: { authorization: `Bearer ${id}.${s}` } });
    await expect(a.authenticate(tok('wrongs', '0123456789abcdee'))).rejects.toThrow(/^invalid bearer token$/);
    await expect(a.authenticate(tok('wrongs', '0123456789abcdef'))).resolves.not.toBeNull(); // the control
    for (const id of ['expird', 'badexp', 'nousag', 'nokey0', 'badgrp', 'badgr2', 'type00', 'delete', 'otheri', 'absent']) {
      await expect(a.authenticate(tok(id)), id).rejects.toThrow(/^invalid bearer token$/);
    }
  });

  it('is "not mine" for tokens of another shape (without reading a Secret), so other authenticators may take them', async () => {
    const { a, asked } = authn({});
    expect(await a.authenticateToken('not-a-bootstrap-token')).toBeNull();
    expect(await a.authenticateToken('ABCDEF.0123456789abcdef')).toBeNull(); // upper case is not allowed
    expect(await a.authenticateToken('abcdef.0123456789abcde')).toBeNull();
    expect(asked).toEqual([]);
  });

  it('is good for the API audiences only', async () => {
    const { a } = authn({ 'bootstrap-token-abcdef': secret(good) }, ['https://kapi.local']);
    const t = 'abcdef.0123456789abcdef';
    expect((await a.authenticateToken(t, ['https://kapi.local', 'x']))?.audiences).toEqual(['https://kapi.local']);
    expect(await a.authenticateToken(t, ['vault'])).toBeNull();
    expect((await a.authenticateToken(t))?.audiences).toBeUndefined();
  });
});
