import type { KubeObject, OwnerReference } from '@kapi/apimachinery';
import { FOREGROUND_FINALIZER } from '../store/deletion.ts';

/** Who an object is: what an owner reference names, plus the namespace it is looked up in ('' cluster-wide). */
export interface ObjectIdentity {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/**
 * A node of the garbage collector's graph (kube's graph.go node): an object seen by an informer, or a "virtual" one
 * that only a dependent's owner reference names, whose existence is still to be checked.
 */
export interface OwnerNode {
  identity: ObjectIdentity;
  /** Seen by an informer (not virtual). */
  observed: boolean;
  /** `plural.group` of the kind it was seen in; '' while virtual. */
  resource: string;
  owners: readonly OwnerReference[];
  /** Made with the first dependent (`addDependent`): most objects never have one, and an empty Set costs ~150 bytes. */
  dependents: Set<OwnerNode> | undefined;
  /** It has a deletionTimestamp. */
  beingDeleted: boolean;
  /** It has a deletionTimestamp and the foregroundDeletion finalizer: its dependents go first. */
  deletingDependents: boolean;
}

/** The identity of an object an informer delivered, in its own apiVersion and kind. */
export function identityOf(obj: KubeObject): ObjectIdentity {
  return {
    apiVersion: obj.apiVersion ?? '',
    kind: obj.kind ?? '',
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name ?? '',
    uid: obj.metadata.uid ?? '',
  };
}

export const isDeletingDependents = (obj: KubeObject): boolean =>
  !!obj.metadata.deletionTimestamp && (obj.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER);

const NO_DEPENDENTS: ReadonlySet<OwnerNode> = new Set();

/** The owners of a node that names none: one frozen array for all of them rather than an empty one each. */
export const NO_OWNERS: readonly OwnerReference[] = Object.freeze([]);

/** The nodes whose owner references name `node`. */
export const dependentsOf = (node: OwnerNode): ReadonlySet<OwnerNode> => node.dependents ?? NO_DEPENDENTS;

export function addDependent(owner: OwnerNode, dependent: OwnerNode): void {
  owner.dependents ??= new Set();
  owner.dependents.add(dependent);
}

/** The dependents that block `owner`'s foreground deletion: those whose reference to it has blockOwnerDeletion. */
export function blockingDependents(owner: OwnerNode): OwnerNode[] {
  return [...dependentsOf(owner)].filter((d) => d.owners.some((r) => r.uid === owner.identity.uid && r.blockOwnerDeletion === true));
}

/** The owner → dependents graph, keyed by uid (kube's uidToNode). */
export class OwnerGraph {
  readonly #nodes = new Map<string, OwnerNode>();

  get(uid: string): OwnerNode | undefined {
    return this.#nodes.get(uid);
  }

  get size(): number {
    return this.#nodes.size;
  }

  nodes(): IterableIterator<OwnerNode> {
    return this.#nodes.values();
  }

  /** A new node; its owners are linked with `link`. */
  insert(node: OwnerNode): void {
    this.#nodes.set(node.identity.uid, node);
  }

  /** Unlinks a node from its owners and drops it; its dependents keep their references (they are to be checked). */
  remove(node: OwnerNode): void {
    for (const ref of node.owners) this.#nodes.get(ref.uid)?.dependents?.delete(node);
    if (this.#nodes.get(node.identity.uid) === node) this.#nodes.delete(node.identity.uid);
  }
}
