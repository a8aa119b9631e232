import { describe, expect, it } from 'vitest';
import { audienceAgnosticToken, intersectAudiences } from './audiences.ts';
import { BearerTokenAuthenticator } from './bearer-token.ts';
import { TokenFileAuthenticator } from './token-file.ts';

describe('API audiences', () => {
  it('intersects in the order of the first list', () => {
    expect(intersectAudiences(['a', 'b', 'c'], ['c', 'a'])).toEqual(['a', 'c']);
    expect(intersectAudiences(['a'], [])).toEqual([]);
  });

  it('an audience-agnostic token is good for the implicit audiences only (kube’s WrapAudienceAgnosticToken)', async () => {
    const t = audienceAgnosticToken(['api', 'k8s'], { authenticateToken: async () => ({ user: { name: 'u', groups: [] } }) });
    expect(await t.authenticateToken('x')).toEqual({ user: { name: 'u', groups: [] } });
    expect(await t.authenticateToken('x', ['k8s', 'other'])).toEqual({ user: { name: 'u', groups: [] }, audiences: ['k8s'] });
    expect(await t.authenticateToken('x', ['other'])).toBeNull();
  });

  it('the token file honours the request’s audiences through the bearer authenticator', async () => {
    const file = TokenFileAuthenticator.fromCSV('s3cret,alice,1\n', '<inline>', { apiAudiences: ['https://kapi'] });
    const req = (audiences?: string[]) => ({ headers: { authorization: 'Bearer s3cret' }, audiences });
    expect((await file.authenticate(req(['https://kapi'])))?.audiences).toEqual(['https://kapi']);
    await expect(file.authenticate(req(['vault']))).rejects.toThrow(/^invalid bearer token$/);
    expect((await new BearerTokenAuthenticator(file).authenticate(req()))?.user.name).toBe('alice');
    // Without API audiences configured, a request that asks for audiences finds no static token (kube's behaviour).
    const plain = TokenFileAuthenticator.fromCSV('s3cret,alice,1\n');
    await expect(plain.authenticate(req(['https://kapi']))).rejects.toThrow(/^invalid bearer token$/);
  });
});
