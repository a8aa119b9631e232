import { describe, expect, it } from 'vitest';
import { BearerTokenAuthenticator, bearerTokenOf } from './bearer-token.ts';

describe('bearerTokenOf', () => {
  it('reads the token as kube’s bearertoken authenticator does', () => {
    expect(bearerTokenOf({ authorization: 'Bearer abc' })).toBe('abc');
    expect(bearerTokenOf({ authorization: 'bEaReR abc' })).toBe('abc');
    expect(bearerTokenOf({ authorization: '  Bearer abc  ' })).toBe('abc');
    expect(bearerTokenOf({ authorization: 'Bearer abc extra' })).toBe('abc');
    expect(bearerTokenOf({ authorization: 'Bearer  abc' })).toBeUndefined(); // two spaces: empty token
    expect(bearerTokenOf({ authorization: 'Bearer' })).toBeUndefined();
    expect(bearerTokenOf({ authorization: 'Basic dXNlcjpwdw==' })).toBeUndefined();
    expect(bearerTokenOf({})).toBeUndefined();
  });
});

describe('BearerTokenAuthenticator', () => {
  const authn = new BearerTokenAuthenticator({
    authenticateToken: async (t) => (t === 'good' ? { user: { name: 'u', groups: [] } } : null),
  });
  it('no bearer token → no opinion; known → user; unknown → "invalid bearer token"', async () => {
    expect(await authn.authenticate({ headers: {} })).toBeNull();
    expect((await authn.authenticate({ headers: { authorization: 'Bearer good' } }))?.user.name).toBe('u');
    await expect(authn.authenticate({ headers: { authorization: 'Bearer nope' } })).rejects.toThrow(/^invalid bearer token$/);
  });
});
