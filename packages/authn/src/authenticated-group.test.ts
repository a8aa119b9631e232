import { describe, expect, it } from 'vitest';
import { withAuthenticatedGroup } from './authenticated-group.ts';
import type { Authenticator } from './authenticator.ts';
import type { UserInfo } from './user-info.ts';

const as = (user: UserInfo | null): Authenticator => ({ authenticate: async () => (user ? { user, audiences: ['api'] } : null) });
const req = { headers: {} };

describe('withAuthenticatedGroup', () => {
  it('adds system:authenticated once, keeping the rest of the result', async () => {
    const r = await withAuthenticatedGroup(as({ name: 'alice', uid: '1', groups: ['dev'], extra: { k: ['v'] } })).authenticate(req);
    expect(r).toEqual({
      user: { name: 'alice', uid: '1', groups: ['dev', 'system:authenticated'], extra: { k: ['v'] } },
      audiences: ['api'],
    });
  });

  it('leaves anonymous, already-marked users, no opinion and failures alone', async () => {
    const anon = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
    expect((await withAuthenticatedGroup(as(anon)).authenticate(req))?.user).toEqual(anon);
    const marked = { name: 'bob', groups: ['system:authenticated', 'x'] };
    expect((await withAuthenticatedGroup(as(marked)).authenticate(req))?.user).toEqual(marked);
    const unauth = { name: 'carol', groups: ['system:unauthenticated'] };
    expect((await withAuthenticatedGroup(as(unauth)).authenticate(req))?.user.groups).toEqual(['system:unauthenticated']);
    expect(await withAuthenticatedGroup(as(null)).authenticate(req)).toBeNull();
    const failing: Authenticator = {
      authenticate: async () => {
        throw new Error('nope');
      },
    };
    await expect(withAuthenticatedGroup(failing).authenticate(req)).rejects.toThrow('nope');
  });
});
