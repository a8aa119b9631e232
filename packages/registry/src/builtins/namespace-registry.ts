import { type KubeObject, newConflict, newForbidden, realClock } from '@kapi/apimachinery';
import { isStorageError } from '@kapi/storage';
import { finalizersForDeletion } from '../store/deletion.ts';
import { Store, type StoreOptions } from '../store/store.ts';
import { rfc3339Seconds } from '../store/timestamp.ts';
import type { DeleteResult, StoreDeleteOptions, StoreUpdateOptions, UpdateResult } from '../store/types.ts';
import { Namespace, namespaceFinalize, shouldDeleteNamespaceDuringUpdate } from './namespace.ts';

export type NamespaceRegistryOptions = Omit<StoreOptions, 'beforeCreate' | 'shouldDeleteDuringUpdate'> & {
  /** Admission of a namespace delete that passed the immortal-namespace check (NamespaceLifecycle.namespaceDeleted). */
  beforeDelete?: (name: string) => void;
};

const NAMESPACES = { group: '', resource: 'namespaces' };

/** The namespaces kube-apiserver's NamespaceLifecycle admission refuses to delete (its immortalNamespaces). */
export const PROTECTED_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

/**
 * Namespaces as pkg/registry/core/namespace/storage serves them: `store` for every verb but delete, `delete` that
 * marks a namespace Terminating first, and `finalize` (namespaces/finalize) that edits spec.finalizers — the update
 * that empties them on a terminating namespace removes it.
 */
export class NamespaceRegistry {
  readonly store: Store<Namespace>;
  readonly #finalize: Store<Namespace>;
  readonly #options: NamespaceRegistryOptions;

  constructor(options: NamespaceRegistryOptions) {
    this.#options = options;
    const opts = { ...options, shouldDeleteDuringUpdate: shouldDeleteNamespaceDuringUpdate };
    this.store = new Store(Namespace, opts);
    // Same kind and keys, kube's finalizeStrategy: only spec.finalizers (and metadata) change.
    this.#finalize = new Store(namespaceFinalize, opts);
  }

  /** PUT namespaces/{name}/finalize. */
  finalize(name: string, input: unknown, opts: Omit<StoreUpdateOptions, 'subresource'> = {}): Promise<UpdateResult<Namespace>> {
    return this.#finalize.update({}, name, input, opts);
  }

  /**
   * The namespace REST's Delete: the first delete sets deletionTimestamp and phase Terminating and keeps the
   * namespace; later ones remove it only once spec.finalizers is empty (metadata.finalizers then apply as usual).
   * A UID precondition is always added, so a namespace recreated meanwhile is not deleted by mistake.
   * default, kube-system and kube-public are refused with 403, as NamespaceLifecycle admission does.
   */
  async delete(name: string, opts: StoreDeleteOptions = {}): Promise<DeleteResult<Namespace>> {
    // Admission runs before the REST delete: refused whether or not the namespace exists, dryRun included.
    if (PROTECTED_NAMESPACES.has(name)) throw newForbidden(NAMESPACES, name, 'this namespace may not be deleted');
    this.#options.beforeDelete?.(name);
    const ns = await this.store.get({}, name);
    const m = ns.metadata;
    const pre = { ...opts.preconditions };
    if (pre.uid === undefined) pre.uid = m.uid;
    else if (pre.uid !== m.uid)
      throw newConflict(NAMESPACES, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${m.uid ?? ''}`);
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== m.resourceVersion)
      throw newConflict(
        NAMESPACES,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion ?? ''}`,
      );
    if (!m.deletionTimestamp) {
      if (opts.dryRun) return { object: this.#terminating(ns, opts), deleted: false };
      try {
        const key = this.store.keys.key(undefined, name);
        const out = await this.#options.storage.guaranteedUpdate(key, (existing) => this.#terminating(existing as Namespace, opts), {
          preconditions: pre,
        });
        return { object: out as Namespace, deleted: false };
      } catch (err) {
        throw isStorageError(err) ? err.toStatusError(NAMESPACES, name) : err;
      }
    }
    if ((ns.spec?.finalizers ?? []).length) return { object: ns, deleted: false };
    return this.store.delete({}, name, { ...opts, preconditions: pre });
  }

  /** The namespace as the first delete leaves it; also records the GC finalizer a propagationPolicy asks for. */
  #terminating(existing: Namespace, opts: StoreDeleteOptions): Namespace {
    const ns = structuredClone(existing) as Namespace;
    ns.metadata.deletionTimestamp ??= rfc3339Seconds((this.#options.clock ?? realClock).now());
    ns.status = { ...ns.status, phase: 'Terminating' };
    const finalizers = finalizersForDeletion(ns as KubeObject, opts.propagationPolicy);
    if (finalizers) ns.metadata.finalizers = finalizers;
    return ns;
  }
}
