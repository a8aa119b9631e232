import type { AuthenticationOptions } from '@kapi/server-core';

type Authenticator = AuthenticationOptions['authenticator'];

/** Who a bearer token of the test server stands for. */
export interface TestUser {
  readonly name: string;
  readonly groups?: readonly string[];
  readonly uid?: string;
}

/**
 * Bearer tokens from a map (kube's static token file, held in memory): a known token is its user, in
 * `system:authenticated` besides its own groups. Any other bearer token is refused (401), as kube's bearer-token
 * authenticator refuses one no token authenticator knows, even with anonymous requests allowed; no token at all is
 * "not mine" (the request goes on as anonymous).
 */
export function tokenMapAuthenticator(users: ReadonlyMap<string, TestUser>): Authenticator {
  return {
    async authenticate(req) {
      const header = req.headers.authorization;
      const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
      if (!match) return null;
      const user = users.get(match[1] as string);
      if (!user) throw new Error('invalid bearer token');
      const groups = [...(user.groups ?? [])];
      if (!groups.includes('system:authenticated')) groups.push('system:authenticated');
      return { user: { name: user.name, groups, ...(user.uid ? { uid: user.uid } : {}) } };
    },
  };
}
