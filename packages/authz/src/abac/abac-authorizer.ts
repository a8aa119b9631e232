import type { UserInfo } from '@kapi/authn';
import type {
  AuthorizationAttributes,
  AuthorizationResult,
  Authorizer,
  NonResourceRule,
  ResourceRule,
  RulesResult,
} from '../authorizer.ts';
import { type ABACPolicy, loadABACPolicyFile } from './policy.ts';

/** kube's reason when no ABAC policy matched. */
export const ABAC_NO_POLICY_MATCHED = 'No policy matched.';

const READ_ONLY_VERBS = ['get', 'list', 'watch'] as const;

/** kube's Attributes.IsReadOnly. */
const isReadOnly = (verb: string): boolean => verb === 'get' || verb === 'list' || verb === 'watch';

/**
 * kube's ABAC authorizer (pkg/auth/authorizer/abac, `--authorization-mode=ABAC --authorization-policy-file=…`): a
 * request is allowed when a policy matches its subject, verb (a readonly policy only get/list/watch) and either its
 * resource (namespace, resource, API group) or its non-resource path; else NoOpinion "No policy matched.". ABAC never
 * denies.
 *
 * @example
 * const abac = ABACAuthorizer.fromFile('/etc/kapi/abac.jsonl');
 */
export class ABACAuthorizer implements Authorizer {
  readonly policies: readonly ABACPolicy[];

  constructor(policies: readonly ABACPolicy[]) {
    this.policies = [...policies];
  }

  /** kube's abac.NewFromFile; throws ABACPolicyLoadError worded as kube's. */
  static fromFile(path: string): ABACAuthorizer {
    return new ABACAuthorizer(loadABACPolicyFile(path));
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    for (const p of this.policies) {
      if (matches(p, attrs)) return { decision: 'Allow', reason: '' };
    }
    return { decision: 'NoOpinion', reason: ABAC_NO_POLICY_MATCHED };
  }

  /** kube's PolicyList.RulesFor: each policy of the user's in this namespace (or `*`), as a resource and/or path rule. */
  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const p of this.policies) {
      if (!subjectMatches(p, user) || (p.namespace !== '*' && p.namespace !== namespace)) continue;
      const verbs = p.readonly ? [...READ_ONLY_VERBS] : ['*'];
      if (p.resource !== '') resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource] });
      if (p.nonResourcePath !== '') nonResourceRules.push({ verbs, nonResourceURLs: [p.nonResourcePath] });
    }
    return { resourceRules, nonResourceRules, incomplete: false };
  }
}

function matches(p: ABACPolicy, a: AuthorizationAttributes): boolean {
  if (!subjectMatches(p, a.user)) return false;
  if (p.readonly && !isReadOnly(a.verb)) return false;
  return a.resourceRequest ? resourceMatches(p, a) : nonResourceMatches(p, a.path);
}

/** kube's subjectMatches: a policy's user and group, each when set, must match (`*` matches anyone); one of them must be set. */
function subjectMatches(p: ABACPolicy, user: UserInfo): boolean {
  let matched = false;
  if (p.user !== '') {
    if (p.user !== '*' && p.user !== user.name) return false;
    matched = true;
  }
  if (p.group !== '') {
    if (p.group !== '*' && !user.groups.includes(p.group)) return false;
    matched = true;
  }
  return matched;
}

function resourceMatches(p: ABACPolicy, a: AuthorizationAttributes): boolean {
  return (
    (p.namespace === '*' || p.namespace === a.namespace) &&
    (p.resource === '*' || p.resource === a.resource) &&
    (p.apiGroup === '*' || p.apiGroup === a.apiGroup)
  );
}

/** `*`, the exact path, or a prefix ending in `*` (kube trims every trailing `*`). */
function nonResourceMatches(p: ABACPolicy, path: string): boolean {
  if (p.nonResourcePath === '*' || p.nonResourcePath === path) return true;
  return p.nonResourcePath.endsWith('*') && path.startsWith(p.nonResourcePath.replace(/\*+$/, ''));
}
