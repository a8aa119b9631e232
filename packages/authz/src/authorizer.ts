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

/** kube's authorizer.ResourceRuleInfo: verbs a user may use on resources of API groups ("*" matches any). */
export interface ResourceRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  /** Empty or absent: any name. */
  readonly resourceNames?: readonly string[];
}

/** kube's authorizer.NonResourceRuleInfo: verbs on non-resource paths (a trailing "*" is a prefix match). */
export interface NonResourceRule {
  readonly verbs: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

/** What kube's RuleResolver.RulesFor returns: the rules, whether they may be incomplete, and any evaluation error. */
export interface RulesResult {
  readonly resourceRules: readonly ResourceRule[];
  readonly nonResourceRules: readonly NonResourceRule[];
  /** true when the authorizer cannot enumerate everything the user may do (e.g. a webhook). */
  readonly incomplete: boolean;
  /** Set when resolving failed in part; the rules are what could be resolved. */
  readonly error?: Error;
}

/** kube's authorizer.Authorizer. Throwing is an evaluation error (kube answers 500 unless another authorizer allows). */
export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult>;
  /**
   * kube's RuleResolver: what `user` may do in `namespace` (SelfSubjectRulesReview, `kubectl auth can-i --list`).
   * Optional: an authorizer without it is reported as incomplete with no rules.
   */
  rulesFor?(user: UserInfo, namespace: string): Promise<RulesResult>;
}
