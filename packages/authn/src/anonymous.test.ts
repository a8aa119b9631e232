import { describe, expect, it } from 'vitest';
import { AnonymousAuthenticator } from './anonymous.ts';

describe('AnonymousAuthenticator', () => {
  it('answers every request as system:anonymous in system:unauthenticated', async () => {
    const r = await new AnonymousAuthenticator().authenticate({ headers: { authorization: 'Bearer whatever' } });
    expect(r).toEqual({ user: { name: 'system:anonymous', groups: ['system:unauthenticated'] } });
  });
});
