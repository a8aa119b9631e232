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
 * `system:authenticated` besides its own groups; any other token is "not mine" (the request goes on anonymous or 401).
 */
export function tokenMapAuthenticator(users: ReadonlyMap<string, TestUser>): Authenticator {
  return {
    async authenticate(req) {
      const header = req.headers.authorization;
      const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
      const user = match ? users.get(match[1] as string) : undefined;
      if (!user) return null;
      const groups = [...(user.groups ?? [])];
      if (!groups.includes('system:authenticated')) groups.push('system:authenticated');
      return { user: { name: user.name, groups, ...(user.uid ? { uid: user.uid } : {}) } };
    },
  };
}
