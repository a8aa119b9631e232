import { isAlreadyExists, isConflict, isNotFound, type KubeObject } from '@kapi/apimachinery';
import type { RequestContext } from '@kapi/registry';
import { RBAC_GROUP, type RoleBinding } from '../types.ts';
import type { BootstrapPolicy } from './kube-policy.ts';
import type { RbacObjectStore, RbacStores } from './rbac-object-store.ts';
import { computeReconciledRole, type RuleOwner } from './reconcile-role.ts';
import { computeReconciledRoleBinding } from './reconcile-role-binding.ts';

/** What reconciling the bootstrap policy did, each object named as kubectl names it (`clusterrole.rbac.authorization.k8s.io/admin`). */
export interface BootstrapReconcileResult {
  created: string[];
  /** Updated with missing rules, aggregation selectors, subjects, labels or annotations. */
  updated: string[];
  /** Bindings whose roleRef differed: deleted and created again. */
  recreated: string[];
  /** Objects that needed a change but carry `rbac.authorization.kubernetes.io/autoupdate: "false"`. */
  skipped: string[];
  /** Objects that could not be reconciled; the others were still tried, as kube-apiserver does. */
  failed: { name: string; error: unknown }[];
}

export interface ReconcileBootstrapPolicyOptions {
  /** How to wait between retries after a conflict (tests may pass one that does not wait). */
  sleep?: (ms: number) => Promise<void>;
}

type Outcome = 'created' | 'updated' | 'recreated' | 'skipped' | 'unchanged';

/**
 * Reconciles the bootstrap policy as kube-apiserver's rbac/bootstrap-roles post-start hook (ensureRBACPolicy) does:
 * a missing object is created; an existing one gets the rules, aggregation selectors, subjects, labels and annotations
 * it lacks and keeps everything else (a user's added rules and subjects, their label and annotation values); a binding
 * whose roleRef differs is deleted and created again; an object annotated autoupdate "false" is left alone. A run
 * after a run writes nothing. Each object is retried on conflict (client-go's DefaultBackoff: 4 tries, 10 ms × 5ⁿ).
 */
export async function reconcileBootstrapPolicy(
  stores: RbacStores,
  policy: BootstrapPolicy,
  options: ReconcileBootstrapPolicyOptions = {},
): Promise<BootstrapReconcileResult> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const result: BootstrapReconcileResult = { created: [], updated: [], recreated: [], skipped: [], failed: [] };
  const run = async (name: string, reconcile: () => Promise<Outcome>): Promise<void> => {
    try {
      const outcome = await retryOnConflict(reconcile, sleep);
      if (outcome !== 'unchanged') result[outcome].push(name);
    } catch (error) {
      result.failed.push({ name, error });
    }
  };
  for (const role of policy.clusterRoles) {
    await run(nameOf('clusterrole', role), () => reconcileRole(stores.clusterRoles, role, 0));
  }
  for (const binding of policy.clusterRoleBindings) {
    await run(nameOf('clusterrolebinding', binding), () => reconcileRoleBinding(stores.clusterRoleBindings, binding, 0));
  }
  for (const role of policy.roles) {
    await run(nameOf('role', role), () => reconcileRole(stores.roles, role, 0));
  }
  for (const binding of policy.roleBindings) {
    await run(nameOf('rolebinding', binding), () => reconcileRoleBinding(stores.roleBindings, binding, 0));
  }
  return result;
}

function nameOf(kind: string, obj: KubeObject): string {
  const { name = '', namespace } = obj.metadata;
  return `${kind}.${RBAC_GROUP}/${namespace ? `${namespace}/` : ''}${name}`;
}

const contextOf = (obj: KubeObject): RequestContext => (obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {});

/** client-go's retry.RetryOnConflict with retry.DefaultBackoff. */
async function retryOnConflict<T>(fn: () => Promise<T>, sleep: (ms: number) => Promise<void>): Promise<T> {
  const steps = 4;
  let delay = 10;
  for (let step = 1; ; step++) {
    try {
      return await fn();
    } catch (err) {
      if (!isConflict(err) || step >= steps) throw err;
      await sleep(delay * (1 + Math.random() * 0.1));
      delay *= 5;
    }
  }
}

async function getOrNone(store: RbacObjectStore, ctx: RequestContext, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(ctx, name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** kube's ReconcileRoleOptions.run: a role that appears or disappears between the read and the write is reconciled again. */
async function reconcileRole(store: RbacObjectStore, expected: RuleOwner, attempts: number): Promise<Outcome> {
  if (attempts > 2) throw new Error('exceeded maximum attempts');
  const ctx = contextOf(expected);
  const name = expected.metadata.name ?? '';
  const existing = await getOrNone(store, ctx, name);
  if (!existing) {
    try {
      await store.create(ctx, structuredClone(expected));
      return 'created';
    } catch (err) {
      if (isAlreadyExists(err)) return reconcileRole(store, expected, attempts + 1);
      throw err;
    }
  }
  const reconciled = computeReconciledRole(existing as RuleOwner, expected);
  if (reconciled.operation === 'none') return 'unchanged';
  if (reconciled.protected) return 'skipped';
  try {
    await store.update(ctx, name, reconciled.role);
    return 'updated';
  } catch (err) {
    if (isNotFound(err)) return reconcileRole(store, expected, attempts + 1);
    throw err;
  }
}

/** kube's ReconcileRoleBindingOptions.run; a recreate deletes on the existing binding's uid, so a newer one is never lost. */
async function reconcileRoleBinding(store: RbacObjectStore, expected: RoleBinding, attempts: number): Promise<Outcome> {
  if (attempts > 3) throw new Error('exceeded maximum attempts');
  const ctx = contextOf(expected);
  const name = expected.metadata.name ?? '';
  const existing = await getOrNone(store, ctx, name);
  let outcome: Outcome = 'created';
  if (existing) {
    const reconciled = computeReconciledRoleBinding(existing as RoleBinding, expected);
    if (reconciled.operation === 'none') return 'unchanged';
    if (reconciled.protected) return 'skipped';
    if (reconciled.operation === 'update') {
      try {
        await store.update(ctx, name, reconciled.binding);
        return 'updated';
      } catch (err) {
        if (isNotFound(err)) return reconcileRoleBinding(store, expected, attempts + 1);
        throw err;
      }
    }
    try {
      const uid = existing.metadata.uid;
      await store.delete(ctx, name, uid ? { preconditions: { uid } } : {});
    } catch (err) {
      // gone already is what we want; a conflict on the uid means another binding took its place: look again
      if (isConflict(err)) return reconcileRoleBinding(store, expected, attempts + 1);
      if (!isNotFound(err)) throw err;
    }
    outcome = 'recreated';
  }
  try {
    await store.create(ctx, structuredClone(expected));
    return outcome;
  } catch (err) {
    if (isAlreadyExists(err)) return reconcileRoleBinding(store, expected, attempts + 1);
    throw err;
  }
}
