import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';
import { parseCsv } from './csv.ts';
import type { UserInfo } from './user-info.ts';

/** kube's basicauth error when a request's user and password are not in the file. */
export const INVALID_BASIC_AUTH = 'invalid basic auth';

/**
 * LEGACY: kube's static password file (`--basic-auth-file`, authentication/password/passwordfile with
 * request/basicauth), removed from kube-apiserver in 1.19. Opt-in here for old setups only: passwords sit in a file
 * in clear text and travel with every request. CSV lines `password,user,uid[,"group1,group2"]`; requests send
 * `Authorization: Basic base64(user:password)`. No Basic credential → no opinion; a wrong one → throws.
 *
 * @example
 * const authn = BasicAuthAuthenticator.fromCSV('pa55,alice,1001,"dev,ops"\n');
 */
export class BasicAuthAuthenticator implements Authenticator {
  readonly #users: ReadonlyMap<string, { password: Buffer; user: UserInfo }>;

  constructor(users: ReadonlyMap<string, { password: string; user: UserInfo }>) {
    this.#users = new Map([...users].map(([name, u]) => [name, { password: Buffer.from(u.password), user: u.user }]));
  }

  static fromFile(path: string): BasicAuthAuthenticator {
    return BasicAuthAuthenticator.fromCSV(readFileSync(path, 'utf8'), path);
  }

  /** As kube: fewer than 3 columns fails the file; a repeated user's last line wins; groups split on ','. */
  static fromCSV(text: string, source = '<inline>'): BasicAuthAuthenticator {
    const users = new Map<string, { password: string; user: UserInfo }>();
    for (const { fields } of parseCsv(text)) {
      if (fields.length < 3) {
        throw new Error(`password file '${source}' must have at least 3 columns (password, user name, user uid), found ${fields.length}`);
      }
      const [password, name, uid, groups] = fields as [string, string, string, string | undefined];
      users.set(name, { password, user: { name, uid, groups: groups === undefined ? [] : groups.split(',') } });
    }
    return new BasicAuthAuthenticator(users);
  }

  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
    const creds = basicCredentialsOf(req.headers.authorization);
    if (!creds) return null;
    const entry = this.#users.get(creds.user);
    const given = Buffer.from(creds.password);
    const ok = entry !== undefined && entry.password.length === given.length && timingSafeEqual(entry.password, given);
    if (!ok) throw new Error(INVALID_BASIC_AUTH);
    return { user: entry.user };
  }
}

/** Go's Request.BasicAuth: scheme "Basic" (case-insensitive), base64 of `user:password` split at the first ':'. */
function basicCredentialsOf(header: string | undefined): { user: string; password: string } | undefined {
  if (!header || header.length < 6 || header.slice(0, 6).toLowerCase() !== 'basic ') return undefined;
  const encoded = header.slice(6);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return undefined;
  return { user: decoded.slice(0, i), password: decoded.slice(i + 1) };
}
