import type { UserInfo } from '@kapi/authn';
import type { AuthorizationAttributes, Authorizer } from '@kapi/authz';
import type { AuthzCheck, AuthzDecision } from '@kapi/cel';

/** kube's serviceaccount.UserInfo(ns, name): the user `authorizer.serviceAccount(ns, name)` asks about. */
export function serviceAccountUser(namespace: string, name: string): UserInfo {
  return {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
  };
}

// stands in for an answer not known yet; the expression is evaluated again once it is
const PENDING: AuthzDecision = { decision: 'NoOpinion', reason: '' };

/**
 * The answers of an asynchronous Authorizer for one request's CEL expressions. CEL evaluates synchronously, so an
 * evaluation asks `decide`, which answers from what is known and records what is not; the caller then `resolve()`s
 * and evaluates again, until an evaluation asked nothing new. Expressions are deterministic, so the last evaluation
 * is the one kube's synchronous authorizer calls would give. Answers are shared by every expression of the request.
 */
export class AuthorizationCache {
  readonly #authorizer: Authorizer;
  readonly #user: UserInfo;
  readonly #answers = new Map<string, AuthzDecision>();
  readonly #pending = new Map<string, AuthzCheck>();
  /** How many unknown checks were asked so far (a memoized result is only kept when none was asked meanwhile). */
  misses = 0;

  constructor(authorizer: Authorizer, user: UserInfo) {
    this.#authorizer = authorizer;
    this.#user = user;
  }

  readonly decide = (check: AuthzCheck): AuthzDecision => {
    const key = JSON.stringify(check);
    const known = this.#answers.get(key);
    if (known) return known;
    this.misses++;
    this.#pending.set(key, check);
    return PENDING;
  };

  get pending(): boolean {
    return this.#pending.size > 0;
  }

  /** Asks the authorizer every recorded check, in parallel; an authorizer error is the Decision's error. */
  async resolve(): Promise<void> {
    const asked = [...this.#pending];
    this.#pending.clear();
    await Promise.all(
      asked.map(async ([key, check]) => {
        let answer: AuthzDecision;
        try {
          const result = await this.#authorizer.authorize(this.#attributes(check));
          answer = { decision: result.decision, reason: result.reason };
        } catch (e) {
          answer = { decision: 'NoOpinion', reason: '', error: e instanceof Error ? e.message : String(e) };
        }
        this.#answers.set(key, answer);
      }),
    );
  }

  #attributes(check: AuthzCheck): AuthorizationAttributes {
    const user = check.serviceAccount ? serviceAccountUser(check.serviceAccount.namespace, check.serviceAccount.name) : this.#user;
    return {
      user,
      verb: check.verb,
      resourceRequest: check.resourceRequest,
      namespace: check.namespace,
      apiGroup: check.group,
      apiVersion: check.resourceRequest ? check.version : '',
      resource: check.resource,
      subresource: check.subresource,
      name: check.name,
      path: check.path,
    };
  }
}
