import { isConflict, isNotFound, type KubeObject, type OwnerReference } from '@kapi/apimachinery';
import type { ResourceDefinition } from '../resource-definition.ts';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../store/deletion.ts';
import type { Store } from '../store/store.ts';
import type { PropagationPolicy, RequestContext, StoreDeleteOptions } from '../store/types.ts';
import { ControllerLoop, type ControllerLoopOptions, type InformerLoop } from './controller-loop.ts';
import { listAndWatch } from './list-and-watch.ts';
import {
  addDependent,
  blockingDependents,
  dependentsOf,
  identityOf,
  isDeletingDependents,
  NO_OWNERS,
  type ObjectIdentity,
  OwnerGraph,
  type OwnerNode,
} from './owner-graph.ts';

/** What the collector watches: the served kinds and their Stores (a GenericAPIServer is one), and their changes. */
export interface ServedResources {
  definitions(): readonly ResourceDefinition[];
  /** The Store of `plural` or `plural.group`. */
  store(resource: string): Store | undefined;
  /** A kind's own delete where its Store's is not all of it (a Namespace's goes through its registry). */
  deleter?(resource: string): { delete(name: string, options: StoreDeleteOptions): Promise<unknown> } | undefined;
  onResourcesChanged?(
    listener: (change: { readonly type: 'Added' | 'Removed'; readonly definition: ResourceDefinition }) => void,
  ): () => void;
}

export interface GarbageCollectorOptions extends ControllerLoopOptions {
  resources: ServedResources;
  /**
   * Told of what kube's collector records as a Warning event on a dependent: reason OwnerRefInvalidNamespace, for an
   * owner reference that names a namespaced owner from another namespace or from a cluster-scoped dependent.
   */
  recordWarning?: (regarding: ObjectIdentity, reason: string, message: string) => void;
}

/** A served kind, as an owner reference's apiVersion and kind resolve to it. */
interface Target {
  readonly definition: ResourceDefinition;
  readonly store: Store;
  /** Deletes an object of the kind: its own deleter's, else the Store's. */
  delete(ctx: RequestContext, name: string, options: StoreDeleteOptions): Promise<unknown>;
}

const resourceKey = (def: ResourceDefinition): string => (def.group ? `${def.plural}.${def.group}` : def.plural);
/**
 * Kinds the collector leaves alone (kube's DefaultIgnoredResources): events, core and events.k8s.io — one stored object
 * under two APIs, numerous, and never owners.
 */
const IGNORED = new Set(['events', 'events.events.k8s.io']);
const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '');
const versionOf = (apiVersion: string): string => apiVersion.slice(apiVersion.indexOf('/') + 1);
const MAX_CONFLICT_RETRIES = 5;
/** How long the workers wait for the kinds served at start to be listed (kube's 30 s cache-sync wait). */
const SYNC_TIMEOUT_MS = 30_000;

/** Work keys: `d:<uid>` checks whether an object is to be deleted (attemptToDelete), `o:<uid>` orphans an owner's dependents. */
const DELETE = 'd:';
const ORPHAN = 'o:';

/**
 * kube-controller-manager's garbage collector (pkg/controller/garbagecollector), in process. It watches every served
 * kind, keeps an owner → dependents graph keyed by uid, and acts on what ownerReferences and propagationPolicy promise:
 * - an object whose owners are all gone (not found by name, or found with another uid) is deleted (Background, or
 *   the policy its own GC finalizers ask for); one that still has a live owner only loses the dead references;
 * - an owner with the `foregroundDeletion` finalizer has its dependents deleted first (foreground again for those that
 *   have dependents of their own); once no dependent with `blockOwnerDeletion` is left, the finalizer goes, and the owner with it;
 * - an owner with the `orphan` finalizer has its reference removed from every dependent, then the finalizer.
 * A namespaced owner is looked up in its dependent's namespace only, so a reference to one from another namespace
 * counts as absent; a cluster-scoped dependent naming a namespaced owner is left alone. A dependent whose owner's kind
 * is not served is looked at again later (the kind may come, as a CRD's does). Kinds join and leave as the server's change.
 */
export class GarbageCollector {
  readonly #resources: ServedResources;
  readonly #recordWarning: GarbageCollectorOptions['recordWarning'];
  readonly #loop: ControllerLoop;
  readonly #graph = new OwnerGraph();
  /** The running informers: `plural.group` → the abort of its listAndWatch. */
  readonly #informers = new Map<string, AbortController>();
  #informerLoop: InformerLoop | undefined;
  /** Resolves once every kind served at start was listed (or the collector stopped). */
  #graphSynced: Promise<void> = Promise.resolve();
  /** The kinds served at start not listed yet, and what resolves #graphSynced. */
  #unsynced = new Set<string>();
  #synced: () => void = () => {};
  #unsubscribe: (() => void) | undefined;

  constructor(options: GarbageCollectorOptions) {
    this.#resources = options.resources;
    this.#recordWarning = options.recordWarning;
    this.#loop = new ControllerLoop(options, async (key) => {
      // kube's workers start once the graph is synced: a foreground owner must not lose its finalizer before the
      // blocking dependents of a kind not listed yet are in the graph.
      await this.#graphSynced;
      return key.startsWith(ORPHAN) ? this.#orphan(key.slice(ORPHAN.length)) : this.#attemptToDelete(key.slice(DELETE.length));
    });
  }

  get running(): boolean {
    return this.#loop.running;
  }

  /** The graph's size (observed and virtual nodes), for tests and metrics. */
  get graphSize(): number {
    return this.#graph.size;
  }

  /** Watches every kind served now and those added later. */
  start(): void {
    this.#loop.start((loop) => {
      this.#informerLoop = loop;
      const defs = this.#resources.definitions().filter((d) => !IGNORED.has(resourceKey(d)));
      this.#unsynced = new Set(defs.map(resourceKey));
      this.#graphSynced = new Promise((resolve) => {
        this.#synced = resolve;
      });
      if (!this.#unsynced.size) this.#synced();
      // As kube's: a kind whose list keeps failing holds the work back 30 s at most, then it proceeds anyway.
      const timer = loop.clock.setTimeout(() => this.#synced(), SYNC_TIMEOUT_MS);
      void this.#graphSynced.then(() => loop.clock.clearTimeout(timer));
      for (const def of defs) this.#watch(def);
      this.#unsubscribe = this.#resources.onResourcesChanged?.((change) => {
        if (change.type === 'Removed') this.#unwatch(resourceKey(change.definition));
        else this.#watch(change.definition);
      });
    });
  }

  /** Stops watching and drops pending work; a sync under way finishes. */
  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    for (const key of [...this.#informers.keys()]) this.#unwatch(key);
    this.#informerLoop = undefined;
    this.#synced();
    this.#loop.stop();
  }

  /** Resolves once no work is queued or under way (work waiting to be retried does not count; work waits for the graph's first sync). */
  idle(): Promise<void> {
    return this.#loop.queue.idle();
  }

  #watch(def: ResourceDefinition): void {
    const loop = this.#informerLoop;
    const key = resourceKey(def);
    if (IGNORED.has(key)) return;
    const store = this.#resources.store(key);
    if (!store) this.#listed(key);
    if (!loop || !store || this.#informers.has(key)) return;
    const abort = new AbortController();
    this.#informers.set(key, abort);
    const signal = AbortSignal.any([loop.signal, abort.signal]);
    void listAndWatch(store, {
      ...loop,
      signal,
      onEvent: (type, obj) => (type === 'DELETED' ? this.#deleted(obj.metadata.uid) : this.#observed(obj, key)),
      onList: (items) => {
        this.#relisted(key, items);
        this.#listed(key);
      },
    });
  }

  /** A kind no longer served: its informer stops; its nodes stay (its objects stay in storage, as kube's graph keeps them). */
  #unwatch(key: string): void {
    this.#listed(key);
    this.#informers.get(key)?.abort();
    this.#informers.delete(key);
  }

  /** A kind served at start was listed (or will not be): the graph is synced once all were. */
  #listed(key: string): void {
    if (this.#unsynced.delete(key) && !this.#unsynced.size) this.#synced();
  }

  #enqueue(prefix: string, uid: string): void {
    this.#loop.queue.add(prefix + uid);
  }

  // ---------------------------------------------------------------------------------------------- the graph (graph_builder.go)

  /** An object added or changed: its node, its links to its owners, and the work its deletion state asks for. */
  #observed(obj: KubeObject, resource: string): void {
    const uid = obj.metadata.uid;
    if (!uid) return;
    const identity = identityOf(obj);
    let node = this.#graph.get(uid);
    if (!node) {
      node = {
        identity,
        observed: true,
        resource,
        owners: NO_OWNERS,
        dependents: undefined,
        beingDeleted: false,
        deletingDependents: false,
      };
      this.#graph.insert(node);
    } else {
      const wasVirtual = !node.observed;
      node.identity = identity;
      node.observed = true;
      node.resource = resource;
      // Dependents that named it from another namespace (or cluster-wide) found it absent; they are checked again.
      if (wasVirtual) for (const dep of dependentsOf(node)) if (this.#outOfReach(node, dep)) this.#enqueue(DELETE, dep.identity.uid);
    }
    this.#relink(node, obj.metadata.ownerReferences ?? NO_OWNERS);
    const wasDeletingDependents = node.deletingDependents;
    node.beingDeleted = !!obj.metadata.deletionTimestamp;
    node.deletingDependents = isDeletingDependents(obj);
    if (node.beingDeleted && (obj.metadata.finalizers ?? []).includes(ORPHAN_FINALIZER)) this.#enqueue(ORPHAN, uid);
    if (node.deletingDependents) {
      if (!wasDeletingDependents) for (const dep of dependentsOf(node)) this.#enqueue(DELETE, dep.identity.uid);
      this.#enqueue(DELETE, uid);
    }
  }

  /** Whether `owner`, a namespaced object, is out of `dep`'s reach (another namespace): the reference counts as absent. */
  #outOfReach(owner: OwnerNode, dep: OwnerNode): boolean {
    return owner.observed && owner.identity.namespace !== '' && owner.identity.namespace !== dep.identity.namespace;
  }

  /** Links a node to the owners it names now and unlinks it from those it no longer names. */
  #relink(node: OwnerNode, refs: readonly OwnerReference[]): void {
    const before = new Map(node.owners.map((r) => [r.uid, r]));
    const after = new Map(refs.map((r) => [r.uid, r]));
    node.owners = refs;
    for (const [uid, old] of before) {
      const now = after.get(uid);
      const owner = this.#graph.get(uid);
      if (!now) owner?.dependents?.delete(node);
      // A dependent that stops blocking (or stops being one) may be what a foreground owner waits for.
      if ((!now || (old.blockOwnerDeletion && !now.blockOwnerDeletion)) && owner?.deletingDependents) this.#enqueue(DELETE, uid);
    }
    for (const [uid, ref] of after) {
      if (before.has(uid)) {
        // A re-listed node whose owner came back as a new node object keeps its link.
        const same = this.#graph.get(uid);
        if (same) addDependent(same, node);
        continue;
      }
      let owner = this.#graph.get(uid);
      if (!owner) {
        // A "virtual" owner: only this reference names it; whether it exists is checked.
        owner = {
          identity: { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid, namespace: node.identity.namespace },
          observed: false,
          resource: '',
          owners: NO_OWNERS,
          dependents: undefined,
          beingDeleted: false,
          deletingDependents: false,
        };
        this.#graph.insert(owner);
        this.#enqueue(DELETE, uid);
      } else if (this.#outOfReach(owner, node) || !owner.observed) {
        this.#enqueue(DELETE, node.identity.uid);
      }
      addDependent(owner, node);
    }
  }

  /** An object gone: its node leaves the graph, its dependents are checked, and foreground owners it blocked look again. */
  #deleted(uid: string | undefined): void {
    const node = uid ? this.#graph.get(uid) : undefined;
    if (!node) return;
    this.#graph.remove(node);
    for (const dep of dependentsOf(node)) this.#enqueue(DELETE, dep.identity.uid);
    for (const ref of node.owners) if (this.#graph.get(ref.uid)?.deletingDependents) this.#enqueue(DELETE, ref.uid);
  }

  /** After a (re)list: the kind's nodes not in it were deleted while the informer was not watching. */
  #relisted(resource: string, items: readonly KubeObject[]): void {
    const present = new Set(items.map((o) => o.metadata.uid));
    const gone = [...this.#graph.nodes()].filter((n) => n.observed && n.resource === resource && !present.has(n.identity.uid));
    for (const node of gone) this.#deleted(node.identity.uid);
  }

  // ---------------------------------------------------------------------------------------------- the workers (garbagecollector.go)

  /** The served kind an apiVersion and kind name (kube's REST mapping); undefined while it is not served. */
  #target(apiVersion: string, kind: string): Target | undefined {
    const group = groupOf(apiVersion);
    const version = versionOf(apiVersion);
    for (const definition of this.#resources.definitions()) {
      if (definition.group !== group || definition.kind !== kind || !definition.versions.some((v) => v.name === version && v.served))
        continue;
      const key = resourceKey(definition);
      const store = this.#resources.store(key);
      if (!store) return undefined;
      const deleter = this.#resources.deleter?.(key);
      return {
        definition,
        store,
        delete: (ctx, name, options) => (deleter ? deleter.delete(name, options) : store.delete(ctx, name, options)),
      };
    }
    return undefined;
  }

  /** The object by name, if it is still the one with `uid`. */
  async #live(target: Target, namespace: string, name: string, uid: string): Promise<KubeObject | undefined> {
    try {
      const obj = await target.store.get(this.#ctx(target, namespace), name);
      return obj.metadata.uid === uid ? obj : undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  #ctx(target: Target, namespace: string): RequestContext {
    return target.definition.namespaced ? { namespace } : {};
  }

  /** attemptToDeleteItem; true to look at it again later. */
  async #attemptToDelete(uid: string): Promise<boolean> {
    const node = this.#graph.get(uid);
    if (!node) return false;
    // Being deleted is a one-way trip: its dependents are looked at once it is gone.
    if (node.beingDeleted && !node.deletingDependents) return false;
    const { identity } = node;
    const target = this.#target(identity.apiVersion, identity.kind);
    // A kind not served (yet): kube retries until discovery knows it.
    if (!target) return true;
    const reachable = !target.definition.namespaced || identity.namespace !== '';
    const latest = reachable ? await this.#live(target, identity.namespace, identity.name, uid) : undefined;
    if (!latest) {
      // A virtual owner that does not exist: its dependents are checked. An observed one's deletion comes from its informer.
      if (!node.observed) this.#virtualDeleted(node);
      return false;
    }
    // It exists: the informer will deliver it.
    if (!node.observed) return true;
    if (node.deletingDependents) return this.#processDeletingDependents(node);
    const refs = latest.metadata.ownerReferences ?? [];
    if (!refs.length) return false;

    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const owner = this.#target(ref.apiVersion, ref.kind);
      if (!owner) return true;
      if (owner.definition.namespaced && identity.namespace === '') {
        // kube's namespacedOwnerOfClusterScopedObjectErr: the dependent is left alone.
        this.#warnInvalidNamespace(identity, ref);
        return false;
      }
      const found = await this.#live(owner, identity.namespace, ref.name, ref.uid);
      if (!found) {
        const elsewhere = this.#graph.get(ref.uid);
        if (elsewhere && this.#outOfReach(elsewhere, node)) this.#warnInvalidNamespace(identity, ref);
        dangling.push(ref);
      } else if (isDeletingDependents(found)) waiting.push(ref);
      else solid.push(ref);
    }

    if (solid.length) {
      if (!dangling.length && !waiting.length) return false;
      // The references to owners that are gone, or that wait for their dependents, go (else those owners stay stuck).
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      await this.#mutate(target, identity, (obj) => {
        const owners = obj.metadata.ownerReferences ?? [];
        const kept = owners.filter((r) => !drop.has(r.uid));
        return kept.length === owners.length ? undefined : withOwners(obj, kept);
      });
      return false;
    }
    if (waiting.length && dependentsOf(node).size) {
      // A cycle through foreground owners would wait forever: stop blocking them (kube's unblockOwnerReferences).
      if ([...dependentsOf(node)].some((d) => d.deletingDependents)) {
        const unblock = new Set(waiting.map((r) => r.uid));
        await this.#mutate(target, identity, (obj) => {
          const owners = obj.metadata.ownerReferences ?? [];
          if (!owners.some((r) => unblock.has(r.uid) && r.blockOwnerDeletion)) return undefined;
          return withOwners(
            obj,
            owners.map((r) => (unblock.has(r.uid) ? { ...r, blockOwnerDeletion: false } : r)),
          );
        });
      }
      // Its own dependents go first, as its owner asked.
      await this.#delete(target, latest, 'Foreground');
      return false;
    }
    // No owner is left: it goes, as its own GC finalizers ask.
    const finalizers = latest.metadata.finalizers ?? [];
    const policy: PropagationPolicy = finalizers.includes(ORPHAN_FINALIZER)
      ? 'Orphan'
      : finalizers.includes(FOREGROUND_FINALIZER)
        ? 'Foreground'
        : 'Background';
    await this.#delete(target, latest, policy);
    return false;
  }

  /** An owner named by references only was not found: it leaves the graph and its dependents are checked. */
  #virtualDeleted(node: OwnerNode): void {
    if (this.#graph.get(node.identity.uid) !== node || node.observed) return;
    this.#graph.remove(node);
    for (const dep of dependentsOf(node)) this.#enqueue(DELETE, dep.identity.uid);
  }

  /** processDeletingDependentsItem: the foreground owner's finalizer goes once nothing blocks it. */
  async #processDeletingDependents(node: OwnerNode): Promise<boolean> {
    const blocking = blockingDependents(node);
    if (!blocking.length) {
      await this.#removeFinalizer(node, FOREGROUND_FINALIZER);
      return false;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.#enqueue(DELETE, dep.identity.uid);
    return false;
  }

  /** attemptToOrphan: every dependent loses its reference to the owner, then the owner its `orphan` finalizer. */
  async #orphan(uid: string): Promise<boolean> {
    const node = this.#graph.get(uid);
    if (!node?.observed) return false;
    const errors: unknown[] = [];
    for (const dep of [...dependentsOf(node)]) {
      const target = this.#target(dep.identity.apiVersion, dep.identity.kind);
      if (!target) return true;
      try {
        await this.#mutate(target, dep.identity, (obj) => {
          const owners = obj.metadata.ownerReferences ?? [];
          const kept = owners.filter((r) => r.uid !== uid);
          return kept.length === owners.length ? undefined : withOwners(obj, kept);
        });
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length) throw errors.length === 1 ? errors[0] : new AggregateError(errors, `orphaning the dependents of ${uid} failed`);
    await this.#removeFinalizer(node, ORPHAN_FINALIZER);
    return false;
  }

  async #removeFinalizer(node: OwnerNode, finalizer: string): Promise<void> {
    const target = this.#target(node.identity.apiVersion, node.identity.kind);
    if (!target) throw new Error(`${node.identity.kind} in ${node.identity.apiVersion} is not served`);
    await this.#mutate(target, node.identity, (obj) => {
      const finalizers = obj.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return undefined;
      return { ...obj, metadata: { ...obj.metadata, finalizers: finalizers.filter((f) => f !== finalizer) } };
    });
  }

  /** Read, change, write conditionally on what was read; again on a conflict. Nothing when it is gone or `change` gives nothing. */
  async #mutate(target: Target, identity: ObjectIdentity, change: (obj: KubeObject) => KubeObject | undefined): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const latest = await this.#live(target, identity.namespace, identity.name, identity.uid);
      const next = latest && change(latest);
      if (!next) return;
      try {
        await target.store.update(this.#ctx(target, identity.namespace), identity.name, next);
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) || attempt >= MAX_CONFLICT_RETRIES) throw err;
      }
    }
  }

  /**
   * deleteObject: conditional on the uid and resourceVersion the decision was made on. A conflict from a change that
   * left the owner references as they were (a status write) is not a reason to wait: deleted again on the uid alone.
   * Otherwise the conflict is thrown and the object looked at again.
   */
  async #delete(target: Target, latest: KubeObject, propagationPolicy: PropagationPolicy): Promise<void> {
    const { name = '', namespace = '', uid = '', resourceVersion } = latest.metadata;
    const ctx = this.#ctx(target, namespace);
    try {
      await target.delete(ctx, name, { propagationPolicy, preconditions: { uid, ...(resourceVersion ? { resourceVersion } : {}) } });
      return;
    } catch (err) {
      if (isNotFound(err)) return;
      if (!isConflict(err)) throw err;
      const now = await this.#live(target, namespace, name, uid);
      if (!now) return;
      if (JSON.stringify(now.metadata.ownerReferences ?? []) !== JSON.stringify(latest.metadata.ownerReferences ?? [])) throw err;
    }
    try {
      await target.delete(ctx, name, { propagationPolicy, preconditions: { uid } });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }

  #warnInvalidNamespace(dependent: ObjectIdentity, ref: OwnerReference): void {
    this.#recordWarning?.(
      dependent,
      'OwnerRefInvalidNamespace',
      `ownerRef [${ref.apiVersion}/${ref.kind}, namespace: ${dependent.namespace}, name: ${ref.name}, uid: ${ref.uid}] does not exist in namespace "${dependent.namespace}"`,
    );
  }
}

function withOwners(obj: KubeObject, owners: OwnerReference[]): KubeObject {
  const { ownerReferences: _old, ...rest } = obj.metadata;
  return { ...obj, metadata: owners.length ? { ...rest, ownerReferences: owners } : rest };
}
