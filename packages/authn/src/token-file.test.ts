import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TokenFileAuthenticator, TokenFileError } from './token-file.ts';

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe('TokenFileAuthenticator', () => {
  const csv = ['s3cret,alice,1001,"dev,ops"', 'plain,bob,1002', ',nobody,0', 'dup,first,1', 'dup,second,2', 'nogroups,carol,3,'].join('\n');
  const authn = TokenFileAuthenticator.fromCSV(csv);

  it('maps tokens to users, groups split on commas; empty tokens skipped; the last duplicate wins', async () => {
    expect(await authn.authenticate(bearer('s3cret'))).toEqual({ user: { name: 'alice', uid: '1001', groups: ['dev', 'ops'] } });
    expect(await authn.authenticate(bearer('plain'))).toEqual({ user: { name: 'bob', uid: '1002', groups: [] } });
    expect((await authn.authenticate(bearer('dup')))?.user.name).toBe('second');
    // kube splits an empty 4th column into one empty group.
    expect((await authn.authenticate(bearer('nogroups')))?.user.groups).toEqual(['']);
    expect(authn.size).toBe(4);
  });

  it('no bearer token → no opinion; an unknown bearer token → invalid credential', async () => {
    expect(await authn.authenticate({ headers: {} })).toBeNull();
    expect(await authn.authenticate({ headers: { authorization: 'Basic abc' } })).toBeNull();
    await expect(authn.authenticate(bearer('wrong'))).rejects.toThrow('invalid bearer token');
    expect((await authn.authenticate({ headers: { authorization: ' BEARER s3cret ' } }))?.user.name).toBe('alice');
  });

  it('refuses a line with fewer than 3 columns with kube’s message, and says which line', () => {
    let err: unknown;
    try {
      TokenFileAuthenticator.fromCSV('a,b,c\n\nshort,line\n', '/etc/tokens.csv');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TokenFileError);
    expect((err as TokenFileError).message).toBe(
      "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
    );
    expect((err as TokenFileError).line).toBe(3);
    expect(() => TokenFileAuthenticator.fromCSV('t,u"x,1')).toThrow('parse error on line 1, column 4: bare " in non-quoted-field');
  });

  it('reads a file, naming the path in errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kapi-tokens-'));
    try {
      const path = join(dir, 'tokens.csv');
      writeFileSync(path, 'abc,admin,1,system:masters\n');
      const fromFile = TokenFileAuthenticator.fromFile(path);
      expect((await fromFile.authenticate(bearer('abc')))?.user).toEqual({ name: 'admin', uid: '1', groups: ['system:masters'] });
      writeFileSync(path, 'abc\n');
      expect(() => TokenFileAuthenticator.fromFile(path)).toThrow(`token file '${path}' must have at least 3 columns`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
