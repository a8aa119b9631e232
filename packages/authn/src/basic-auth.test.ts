import { describe, expect, it } from 'vitest';
import { BasicAuthAuthenticator } from './basic-auth.ts';

const basic = (user: string, password: string) => ({
  headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
});

describe('BasicAuthAuthenticator (legacy --basic-auth-file)', () => {
  const authn = BasicAuthAuthenticator.fromCSV('pa55,alice,1001,"dev,ops"\nsecret:with:colons,bob,1002\n');

  it('authenticates password,user,uid[,groups] lines', async () => {
    expect((await authn.authenticate(basic('alice', 'pa55')))?.user).toEqual({ name: 'alice', uid: '1001', groups: ['dev', 'ops'] });
    expect((await authn.authenticate(basic('bob', 'secret:with:colons')))?.user).toEqual({ name: 'bob', uid: '1002', groups: [] });
  });

  it('refuses a wrong password or an unknown user with "invalid basic auth", and has no opinion without Basic', async () => {
    await expect(authn.authenticate(basic('alice', 'pa56'))).rejects.toThrow(/^invalid basic auth$/);
    await expect(authn.authenticate(basic('alice', 'pa5'))).rejects.toThrow(/^invalid basic auth$/);
    await expect(authn.authenticate(basic('carol', 'pa55'))).rejects.toThrow(/^invalid basic auth$/);
    expect(await authn.authenticate({ headers: {} })).toBeNull();
    expect(await authn.authenticate({ headers: { authorization: 'Bearer pa55' } })).toBeNull();
    expect(await authn.authenticate({ headers: { authorization: 'Basic !!!' } })).toBeNull();
  });

  it('fails a file with fewer than 3 columns', () => {
    expect(() => BasicAuthAuthenticator.fromCSV('pw,alice\n', '/etc/pw.csv')).toThrow(
      "password file '/etc/pw.csv' must have at least 3 columns (password, user name, user uid), found 2",
    );
  });
});
