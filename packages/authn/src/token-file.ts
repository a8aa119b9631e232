import { readFileSync } from 'node:fs';
import { audienceAgnosticToken } from './audiences.ts';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';
import { BearerTokenAuthenticator, type TokenAuthenticator } from './bearer-token.ts';
import { parseCsv } from './csv.ts';
import type { UserInfo } from './user-info.ts';

export interface TokenFileOptions {
  /** The server's API audiences (kube's --api-audiences), which these tokens are implicitly good for. */
  apiAudiences?: readonly string[];
}

/** A token file line kube refuses; `line` is where the record starts (kube's message does not say it). */
export class TokenFileError extends Error {
  readonly line: number;
  constructor(message: string, line: number) {
    super(message);
    this.name = 'TokenFileError';
    this.line = line;
  }
}

/**
 * kube's static token file (`--token-auth-file`, authentication/token/tokenfile): CSV lines
 * `token,user,uid,"group1,group2"`, read with Go's CSV rules. Requests authenticate with
 * `Authorization: Bearer <token>`; a bearer token not in the file is an invalid credential (throws),
 * a request without one gets no opinion.
 *
 * As kube: a line with fewer than 3 columns fails the whole file, an empty token skips its line, a repeated
 * token's last line wins, and the groups column is split on ',' as is (so an empty 4th column is one group "").
 *
 * @example
 * const authn = TokenFileAuthenticator.fromCSV('s3cret,alice,1001,"dev,ops"\n');
 */
export class TokenFileAuthenticator implements Authenticator, TokenAuthenticator {
  readonly #tokens: ReadonlyMap<string, UserInfo>;
  readonly #bearer: BearerTokenAuthenticator;
  readonly #audiences: TokenAuthenticator;

  /**
   * `apiAudiences`: the server's API audiences, which static tokens are implicitly good for (kube wraps the token
   * file in WrapAudienceAgnosticToken). Default: none, so a request that asks for audiences finds no token here.
   */
  constructor(tokens: ReadonlyMap<string, UserInfo>, options: TokenFileOptions = {}) {
    this.#tokens = new Map(tokens);
    this.#audiences = audienceAgnosticToken(options.apiAudiences ?? [], {
      authenticateToken: async (token) => {
        const user = this.#tokens.get(token);
        return user ? { user } : null;
      },
    });
    this.#bearer = new BearerTokenAuthenticator(this);
  }

  /** Reads a token file; errors name the path as kube's do. */
  static fromFile(path: string, options: TokenFileOptions = {}): TokenFileAuthenticator {
    return TokenFileAuthenticator.fromCSV(readFileSync(path, 'utf8'), path, options);
  }

  /** Parses token file text; `source` stands for the path in error messages. */
  static fromCSV(text: string, source = '<inline>', options: TokenFileOptions = {}): TokenFileAuthenticator {
    const tokens = new Map<string, UserInfo>();
    for (const { fields, line } of parseCsv(text)) {
      if (fields.length < 3) {
        throw new TokenFileError(
          `token file '${source}' must have at least 3 columns (token, user name, user uid), found ${fields.length}`,
          line,
        );
      }
      const [token, name, uid, groups] = fields as [string, string, string, string | undefined];
      if (token === '') continue;
      tokens.set(token, { name, uid, groups: groups === undefined ? [] : groups.split(',') });
    }
    return new TokenFileAuthenticator(tokens, options);
  }

  /** How many tokens the file defined. */
  get size(): number {
    return this.#tokens.size;
  }

  authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticationResult | null> {
    return this.#audiences.authenticateToken(token, audiences);
  }

  authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
    return this.#bearer.authenticate(req);
  }
}
