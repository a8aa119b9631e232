import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { UserInfo } from './user-info.ts';

/** What an authenticator may look at: the headers, and the TLS socket when the request came over TLS. */
export interface AuthenticationRequest {
  readonly headers: IncomingHttpHeaders;
  /** Every header's field values apart (node's `req.headersDistinct`), when the caller has them. */
  readonly headersDistinct?: NodeJS.Dict<string[]> | undefined;
  readonly socket?: TLSSocket | undefined;
  /**
   * The audiences the credential must be good for (kube's authenticator.WithAudiences): the server's API audiences,
   * or a TokenReview's spec.audiences. Absent: no audience check. A token authenticator answers with the audiences
   * it found in common (`AuthenticationResult.audiences`); none in common is "not mine".
   */
  readonly audiences?: readonly string[] | undefined;
}

export interface AuthenticationResult {
  readonly user: UserInfo;
  /** Audiences the credential was valid for, when the authenticator knows them. */
  readonly audiences?: readonly string[];
}

/**
 * kube's authenticator.Request: `null` means "no opinion" (no credential of my kind: try the next one);
 * throwing means the credential was of my kind and is invalid (the request fails with 401 unless another
 * authenticator succeeds).
 */
export interface Authenticator {
  authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null>;
}
