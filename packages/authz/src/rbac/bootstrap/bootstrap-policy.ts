import type { PolicyRule } from '../types.ts';
import { type BootstrapPolicy, kubeBootstrapPolicy } from './kube-policy.ts';
import { restrictRulesToServed, type ServedResource } from './served-rules.ts';

export interface BootstrapPolicyOptions {
  /**
   * The resources this server serves. Rules keep what is served and wildcards and lose the groups and resources that
   * name nothing served; unset, the policy is kube's as it is.
   */
  served?: readonly ServedResource[];
}

/**
 * The bootstrap policy this server reconciles at start: kube-apiserver's cluster roles (cluster-admin, admin, edit, view
 * and their system:aggregate-to-* parts, system:basic-user, system:discovery, system:public-info-viewer,
 * system:monitoring, system:auth-delegator) and their bindings, and kube-system's
 * extension-apiserver-authentication-reader Role, restricted to the served kinds only where kube's rules name kinds not served.
 */
export function bootstrapPolicy(options: BootstrapPolicyOptions = {}): BootstrapPolicy {
  const policy = kubeBootstrapPolicy();
  const { served } = options;
  if (!served) return policy;
  const restrict = <T extends { rules?: PolicyRule[] }>(owner: T): T => {
    if (owner.rules) owner.rules = restrictRulesToServed(owner.rules, served);
    return owner;
  };
  policy.clusterRoles = policy.clusterRoles.map(restrict);
  policy.roles = policy.roles.map(restrict);
  return policy;
}

/** Policies already built, by served set (a process starting many servers, a test suite's, serves the same kinds). */
const built = new Map<string, BootstrapPolicy>();
const BUILT_MAX = 16;

/**
 * bootstrapPolicy({ served }), built once per process for each served set and shared, deep-frozen: reconciliation
 * copies what it writes. What a server reconciles at start, without rebuilding and restricting kube's roles each time.
 */
export function sharedBootstrapPolicy(served: readonly ServedResource[]): BootstrapPolicy {
  const key = JSON.stringify(served);
  let policy = built.get(key);
  if (!policy) {
    policy = deepFreeze(bootstrapPolicy({ served }));
    if (built.size >= BUILT_MAX) built.delete(built.keys().next().value as string);
    built.set(key, policy);
  }
  return policy;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
