import {
  ConflictsError,
  type Converter,
  FieldSet,
  formatAPIVersionKind,
  type KubeObject,
  type ManagedFields,
  makePath,
  newBadRequest,
  pathString,
  type TypedSchema,
  Updater,
  type VersionedSet,
} from '@kapi/apimachinery';
import { capUpdateManagers, MAX_UPDATE_MANAGERS } from './cap-managers.ts';
import { newApplyConflictError } from './conflict-error.ts';
import { allowedConflictsFromLastApplied, KUBECTL_MANAGER, syncLastApplied } from './last-applied.ts';
import {
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  isResetManagedFields,
  type Managed,
  type StoredManagedFieldsCache,
  sameVersionedSet,
} from './managed.ts';
import { managerIdentifier } from './manager-id.ts';

/** The identity the write's own changes are recorded under before they join the manager's entry (managedFieldsUpdater). */
const CURRENT_OPERATION = 'current-operation';

/** Fields no manager ever owns (kube's stripMetaManager): type meta and the metadata the server sets. */
const STRIP = FieldSet.fromPaths(
  [
    ['apiVersion'],
    ['kind'],
    ['metadata'],
    ['metadata', 'name'],
    ['metadata', 'namespace'],
    ['metadata', 'creationTimestamp'],
    ['metadata', 'selfLink'],
    ['metadata', 'uid'],
    ['metadata', 'clusterName'],
    ['metadata', 'generation'],
    ['metadata', 'managedFields'],
    ['metadata', 'resourceVersion'],
  ].map((p) => makePath(...p)),
);

export interface FieldManagerOptions {
  /** The group/version of the requests served ("v1", "example.com/v1"): the version field sets are recorded in. */
  apiVersion: string;
  kind: string;
  /** "status", "scale", or undefined for the main resource. */
  subresource?: string;
  /** The schema of the whole object in `apiVersion`. */
  typed: TypedSchema;
  /** The schema of another API version of the kind, for managers recorded in it. */
  typeFor: (apiVersion: string) => TypedSchema;
  /** Converts objects between the kind's API versions. */
  converter: Converter;
  /** The strategy's reset fields for this endpoint: nobody owns them through it (GetResetFields). */
  resetFields?: FieldSet;
  /** Names a conflicting field as the endpoint's client sees it (a scale apply's conflicts are the Scale's fields). */
  conflictPath?: (path: string) => string;
  /** The time of a change, RFC 3339 in seconds (the Store's clock). */
  now: () => string;
  /** The Store's decodings of its stored objects' managedFields. */
  storedCache: StoredManagedFieldsCache;
}

/** A copy of `obj` without metadata.managedFields (the sets are computed without it, as kube removes it first). */
function withoutManagedFields(obj: KubeObject): KubeObject {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _m, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** `obj` with `managed` written into its metadata.managedFields (left out when empty). */
function withManagedFields(obj: KubeObject, managed: Managed): KubeObject {
  const entries = encodeManagedFields(managed);
  const { managedFields: _m, ...metadata } = obj.metadata ?? {};
  return { ...obj, metadata: entries ? { ...metadata, managedFields: entries } : metadata };
}

/** `after`, or `before` when it records the same set in the same way (so that the set keeps its identity). */
function keepIfEqual(before: VersionedSet | undefined, after: VersionedSet): VersionedSet {
  return before !== undefined && sameVersionedSet(before, after) ? before : after;
}

/**
 * kube's field manager for one endpoint (a version of a kind, its main resource or a subresource), composed as
 * internal/fieldmanager.go's default pipeline: manager identifiers per operation, version and subresource; meta
 * fields never owned; the time of each manager's last change; at most ten Update managers; apply with conflicts.
 * Built once per endpoint (the Updater holds the schema); objects in and out are in `apiVersion`.
 */
export class FieldManager {
  readonly #opts: FieldManagerOptions;
  readonly #updater: Updater;
  readonly #gvk: string;

  constructor(opts: FieldManagerOptions) {
    this.#opts = opts;
    const typed = opts.typed;
    const typeFor = opts.typeFor;
    this.#updater = new Updater({
      typeFor: (v) => (v === opts.apiVersion ? typed : typeFor(v)),
      converter: opts.converter,
      ...(opts.resetFields && !opts.resetFields.isEmpty() ? { ignored: new Map([[opts.apiVersion, opts.resetFields]]) } : {}),
    });
    this.#gvk = formatAPIVersionKind(opts.apiVersion, opts.kind);
  }

  /**
   * An ordinary write (create, update, json/merge/strategic patch) by `manager`: `next` with its managedFields
   * recorded (kube's UpdateNoErrors). `live` is null on create. The request's own managedFields count when it sends
   * valid ones on the main resource (a client may edit them; `[]` resets tracking); otherwise the live object's stay
   * the base. Should recording fail, the live object's entries are kept as they were.
   */
  update(live: KubeObject | null, next: KubeObject, manager: string): KubeObject {
    try {
      let managed = this.#decodeLiveOrNew(live, next);
      const id = this.#id(manager, 'Update');
      // The manager's set as it was: a write of fields it owns already (the usual update) leaves it an equal set,
      // and the one it had is then kept, so that its entry (and FieldsV1) is reused rather than encoded again.
      const before = managed.fields.get(id);
      const liveBare = live ? withoutManagedFields(live) : null;
      const nextBare = withoutManagedFields(next);
      const res = this.#updater.update(liveBare, nextBare, this.#opts.apiVersion, managed.fields, CURRENT_OPERATION, id);
      managed = { ...managed, fields: res.managers };
      this.#strip(managed.fields, CURRENT_OPERATION);
      // Only a write that changed something becomes (or refreshes) the manager's entry, with the time of this change.
      const own = managed.fields.get(CURRENT_OPERATION);
      if (own) {
        managed.fields.delete(CURRENT_OPERATION);
        const previous = managed.fields.get(id);
        managed.fields.set(id, previous ? keepIfEqual(before, { ...own, set: previous.set.union(own.set) }) : own);
        managed.times.set(id, this.#opts.now());
      }
      capUpdateManagers(managed, MAX_UPDATE_MANAGERS);
      return withManagedFields(nextBare, managed);
    } catch {
      const { managedFields: _m, ...metadata } = next.metadata ?? {};
      const kept = live?.metadata?.managedFields;
      return { ...next, metadata: kept ? { ...metadata, managedFields: kept } : metadata };
    }
  }

  /**
   * A server-side apply of `patch` by `manager` onto `live` (null: the object does not exist yet, and is created from
   * the patch): the merged object with its managedFields. 400 for a patch of another kind or version or one that
   * carries managedFields; 409 (kube's FieldManagerConflict causes) when, without `force`, another manager owns a
   * field the patch sets to another value. A patch that changes nothing returns the live object unchanged.
   */
  apply(live: KubeObject | null, patch: unknown, manager: string, force: boolean): KubeObject {
    if (patch === null || typeof patch !== 'object' || Array.isArray(patch))
      throw newBadRequest('error decoding patch: the patch is not a JSON or YAML object');
    const p = patch as Record<string, unknown>;
    const gvk = formatAPIVersionKind(p.apiVersion, p.kind);
    if (gvk !== this.#gvk) throw newBadRequest(`invalid object type: ${gvk}`);
    const meta = p.metadata;
    if (meta !== null && typeof meta === 'object' && (meta as Record<string, unknown>).managedFields != null)
      throw newBadRequest('metadata.managedFields must be nil');
    let managed: Managed;
    try {
      managed = this.#decodeLive(live);
    } catch (err) {
      throw new Error(`failed to decode managed fields: ${(err as Error).message}`);
    }
    const base: KubeObject = live ? withoutManagedFields(live) : { apiVersion: this.#opts.apiVersion, kind: this.#opts.kind, metadata: {} };
    const id = this.#id(manager, 'Apply');
    const run = (withForce: boolean) => this.#updater.apply(base, patch, this.#opts.apiVersion, managed.fields, id, withForce);
    let res: { object: unknown; managers: ManagedFields };
    try {
      res = run(force);
    } catch (err) {
      // The typed merge refuses a configuration its schema cannot type (duplicate map-list keys, a list for a map):
      // kube's words, as a 400 rather than kube's 500 (bad input never answers 5xx here).
      if (!(err instanceof ConflictsError)) {
        const m = (p.metadata ?? {}) as { name?: unknown; namespace?: unknown };
        throw newBadRequest(
          `failed to create typed patch object (${String(m.namespace ?? '')}/${String(m.name ?? '')}; ${gvk}): ${(err as Error).message}`,
        );
      }
      // kubectl taking over from client-side apply: the fields its last-applied annotation set are not conflicts.
      const allowed =
        manager === KUBECTL_MANAGER ? allowedConflictsFromLastApplied(live, this.#opts.typed, this.#opts.apiVersion) : undefined;
      const remaining = allowed ? err.conflicts.filter((c) => !allowed.has(c.path)) : err.conflicts;
      if (remaining.length) {
        const named = this.#opts.conflictPath ?? ((path: string) => path);
        throw newApplyConflictError(remaining.map((c) => ({ manager: c.manager, path: named(pathString(c.path)) })));
      }
      res = run(true);
    }
    managed = { ...managed, fields: res.managers };
    this.#strip(managed.fields, id);
    if (res.object !== undefined) managed.times.set(id, this.#opts.now());
    const object = withManagedFields((res.object ?? base) as KubeObject, managed);
    if (manager === KUBECTL_MANAGER) syncLastApplied(object, p);
    return object;
  }

  /** The stored object's entries decoded (remembered per stored version). */
  #decodeLive(live: KubeObject | null): Managed {
    return live ? this.#opts.storedCache.decode(live) : emptyManaged();
  }

  /** The writer's identifier (managerIdentifier remembers the JSON it builds for each manager). */
  #id(manager: string, operation: 'Apply' | 'Update'): string {
    const { apiVersion, subresource } = this.#opts;
    return managerIdentifier({ manager: manager || 'unknown', operation, apiVersion, subresource });
  }

  #strip(fields: ManagedFields, id: string): void {
    const vs = fields.get(id);
    if (!vs) return;
    const set = vs.set.difference(STRIP);
    if (set.isEmpty()) fields.delete(id);
    else fields.set(id, { ...vs, set });
  }

  /**
   * kube's decodeLiveOrNew: a subresource write always starts from the live entries; the main resource from the
   * request's when it sends decodable, non-empty ones (`[]` or `[{}]`: none at all), else from the live ones.
   */
  #decodeLiveOrNew(live: KubeObject | null, next: KubeObject): Managed {
    const liveEntries = live?.metadata?.managedFields;
    const liveManaged = (): Managed => {
      try {
        return this.#decodeLive(live);
      } catch {
        return emptyManaged();
      }
    };
    if (this.#opts.subresource) return liveManaged();
    const sent = next.metadata?.managedFields;
    if (isResetManagedFields(sent)) return emptyManaged();
    // A patch carries the live entries themselves.
    if (sent === liveEntries) return liveManaged();
    try {
      // A client that sends back the entries it read (a PUT of the object as got) sends copies: each equal to the
      // stored entry at its place is recorded as that entry (decodeManagedFields' `live`).
      const managed = decodeManagedFields(sent, undefined, liveEntries);
      if (managed.fields.size > 0) return managed;
    } catch {
      // A request's invalid managedFields are ignored: the live ones stay (kube does not fail the write for them).
    }
    return liveManaged();
  }
}
