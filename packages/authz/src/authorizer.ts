import type { UserInfo } from '@kapi/authn';

/** kube's authorizer.Attributes: what a request wants to do, from its RequestInfo and the authenticated user. */
export interface AuthorizationAttributes {
  readonly user: UserInfo;
  readonly verb: string;
  /** true for /api and /apis resource requests; false for paths like /healthz (then `path` matters). */
  readonly resourceRequest: boolean;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  readonly path: string;
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  readonly decision: Decision;
  /** Why, for the Forbidden message and the audit log; may be empty. */
  readonly reason: string;
}

/** kube's authorizer.Authorizer. Throwing is an evaluation error (kube answers 500 unless another authorizer allows). */
export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult>;
}
