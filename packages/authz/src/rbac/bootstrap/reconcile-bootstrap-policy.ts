import { isAlreadyExists, isConflict, isForbidden, isNotFound, type KubeObject } from '@kapi/apimachinery';
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
  const kinds = [
    ['clusterrole', stores.clusterRoles, policy.clusterRoles, reconcileRole],
    ['clusterrolebinding', stores.clusterRoleBindings, policy.clusterRoleBindings, reconcileRoleBinding],
    ['role', ensuringNamespace(stores.roles, stores.namespaces), policy.roles, reconcileRole],
    ['rolebinding', ensuringNamespace(stores.roleBindings, stores.namespaces), policy.roleBindings, reconcileRoleBinding],
  ] as const;
  for (const [kind, store, expected, reconcile] of kinds) {
    if (expected.length === 0) continue;
    const listed = await listedObjects(store);
    for (const obj of expected) {
      // The first try reads the listed object; a retry (after a conflict) reads it again.
      let first = listed !== undefined;
      const read = (ctx: RequestContext, name: string) => {
        if (!first) return getOrNone(store, ctx, name);
        first = false;
        return Promise.resolve(listed?.get(keyOf(ctx.namespace, name)));
      };
      await run(nameOf(kind, obj), () => reconcile(store, obj as RuleOwner & RoleBinding, 0, read));
    }
  }
  return result;
}

/**
 * `store`, whose creates first make sure the object's namespace exists (kube's tryEnsureNamespace): a get, and a
 * create when it is missing; NotFound and Forbidden reading it, AlreadyExists and Forbidden creating it, are not
 * errors (the role's own create then says what is wrong). kube's default namespaces are normally there already.
 */
function ensuringNamespace(store: RbacObjectStore, namespaces: RbacStores['namespaces']): RbacObjectStore {
  if (!namespaces) return store;
  const ensure = async (name: string): Promise<void> => {
    try {
      await namespaces.get({}, name);
      return;
    } catch (err) {
      if (!isNotFound(err) && !isForbidden(err)) throw err;
    }
    try {
      await namespaces.create({}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (err) {
      if (!isAlreadyExists(err) && !isForbidden(err)) throw err;
    }
  };
  return {
    get: (ctx, name) => store.get(ctx, name),
    update: (ctx, name, input) => store.update(ctx, name, input),
    delete: (ctx, name, opts) => store.delete(ctx, name, opts),
    ...(store.list ? { list: store.list.bind(store) } : {}),
    create: async (ctx, input) => {
      if (ctx.namespace) await ensure(ctx.namespace);
      return store.create(ctx, input);
    },
  };
}

type Read = (ctx: RequestContext, name: string) => Promise<KubeObject | undefined>;

const keyOf = (namespace: string | undefined, name: string): string => `${namespace ?? ''}/${name}`;

/**
 * The objects of a kind by namespace and name, from one list (on a new cluster, one read instead of a get and a
 * NotFound per object), or undefined when the store cannot list: each object is then read with a get, as kube does.
 */
async function listedObjects(store: RbacObjectStore): Promise<Map<string, KubeObject> | undefined> {
  if (!store.list) return undefined;
  const { items } = await store.list({});
  return new Map(items.map((o) => [keyOf(o.metadata.namespace, o.metadata.name ?? ''), o]));
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

/** Reads with a get (kube's: every read of reconciliation is a Get). */
const fresh =
  (store: RbacObjectStore): Read =>
  (ctx, name) =>
    getOrNone(store, ctx, name);

async function getOrNone(store: RbacObjectStore, ctx: RequestContext, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(ctx, name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** kube's ReconcileRoleOptions.run: a role that appears or disappears between the read and the write is reconciled again. */
async function reconcileRole(store: RbacObjectStore, expected: RuleOwner, attempts: number, read: Read = fresh(store)): Promise<Outcome> {
  if (attempts > 2) throw new Error('exceeded maximum attempts');
  const ctx = contextOf(expected);
  const name = expected.metadata.name ?? '';
  const existing = await read(ctx, name);
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
async function reconcileRoleBinding(
  store: RbacObjectStore,
  expected: RoleBinding,
  attempts: number,
  read: Read = fresh(store),
): Promise<Outcome> {
  if (attempts > 3) throw new Error('exceeded maximum attempts');
  const ctx = contextOf(expected);
  const name = expected.metadata.name ?? '';
  const existing = await read(ctx, name);
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
