import { describe, expect, it } from 'vitest';
import type { Authenticator } from './authenticator.ts';
import { unionAuthenticator } from './union.ts';

const req = { headers: {} };
const yes = (name: string): Authenticator => ({ authenticate: async () => ({ user: { name, groups: [] } }) });
const none: Authenticator = { authenticate: async () => null };
const fail = (msg: string): Authenticator => ({
  authenticate: async () => {
    throw new Error(msg);
  },
});

describe('unionAuthenticator', () => {
  it('returns the first success, even after an authenticator failed', async () => {
    expect((await unionAuthenticator(none, fail('bad'), yes('a'), yes('b')).authenticate(req))?.user.name).toBe('a');
  });

  it('does not ask the ones after a success', async () => {
    let asked = false;
    const spy: Authenticator = {
      authenticate: async () => {
        asked = true;
        return null;
      },
    };
    await unionAuthenticator(yes('a'), spy).authenticate(req);
    expect(asked).toBe(false);
  });

  it('is null when nobody had an opinion (and for an empty union)', async () => {
    expect(await unionAuthenticator(none, none).authenticate(req)).toBeNull();
    expect(await unionAuthenticator().authenticate(req)).toBeNull();
  });

  it('throws the single error as is, or kube’s aggregate of several', async () => {
    await expect(unionAuthenticator(none, fail('invalid bearer token')).authenticate(req)).rejects.toThrow(/^invalid bearer token$/);
    await expect(unionAuthenticator(fail('x509: bad'), none, fail('invalid bearer token')).authenticate(req)).rejects.toThrow(
      /^\[x509: bad, invalid bearer token\]$/,
    );
  });
});
