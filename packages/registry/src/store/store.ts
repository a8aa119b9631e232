import { randomUUID } from 'node:crypto';
import {
  applyJsonPatch,
  applyMergePatch,
  type Clock,
  checkJsonDepth,
  copyJson,
  type FieldError,
  fieldErrors,
  formatGroupVersion,
  isNotFound,
  type KubeObject,
  newBadRequest,
  newConflict,
  newGenerateNameConflict,
  newNotFound,
  OPTIMISTIC_LOCK_ERROR_MSG,
  realClock,
  StatusError,
  simpleNameGenerator,
  type WatchEvent,
} from '@kapi/apimachinery';
import { isStorageError, MESSAGES, type Preconditions, type Storage, type Watch } from '@kapi/storage';
import { ConversionError, convertObjects, convertOne } from '../convert.ts';
import { goJSON } from '../go-json.ts';
import { invalidError } from '../invalid-error.ts';
import { FieldManager } from '../managed-fields/field-manager.ts';
import { StoredManagedFieldsCache } from '../managed-fields/managed.ts';
import { resetFieldsOf } from '../managed-fields/typed-schema.ts';
import { KindVersions } from '../managed-fields/version-converter.ts';
import type { ResourceDefinition } from '../resource-definition.ts';
import { goFormat } from '../strategic-merge/go-format.ts';
import { applyStrategicMergePatch, patchMetaFor } from '../strategic-merge/index.ts';
import type { StrategyContext } from '../strategy.ts';
import { hasListSetOrMapDuplicates, type ParseResult, parseObject, type ValidateOptions } from '../validate-object.ts';
import { checkName } from './check-name.ts';
import { ConvertingStorage } from './converting-storage.ts';
import { copyKeepingManagedFields } from './copy-keeping-managed-fields.ts';
import { type DocumentDecoding, decodeBody } from './decode.ts';
import { dedupOwnerReferences } from './dedup-owner-references.ts';
import { checkDeletePreconditions, finalizersForDeletion, markAsDeleting, shouldDeleteDuringUpdate } from './deletion.ts';
import { selectionPredicate, validateListOptions, validateWatchOptions } from './list-request.ts';
import { validateObjectMetaUpdate } from './object-meta-update.ts';
import { StoreKeys } from './store-keys.ts';
import { rfc3339Seconds } from './timestamp.ts';
import type {
  DeleteResult,
  PatchType,
  RequestContext,
  StoreCreateOptions,
  StoreDeleteOptions,
  StoreGetOptions,
  StoreList,
  StoreListOptions,
  StorePatchOptions,
  StoreUpdateOptions,
  StoreWatchOptions,
  UpdateResult,
  WriteAdmission,
  WriteResult,
} from './types.ts';

export interface StoreOptions {
  storage: Storage;
  /** Time of creationTimestamp and deletionTimestamp, and of watch timeouts (default: the real clock). */
  clock?: Clock;
  /** Default "/registry". */
  keyPrefix?: string;
  /** Default crypto.randomUUID. */
  uid?: () => string;
  /** Turns a generateName into a name (default: the base plus five random characters). */
  nameGenerator?: { generateName(base: string): string };
  /**
   * Runs before a create is prepared, dryRun too (admission, e.g. NamespaceLifecycle); throws to refuse it. Gets the
   * object as decoded, in the request's version.
   */
  beforeCreate?: (ctx: RequestContext, obj: KubeObject, def: ResourceDefinition) => Promise<void>;
  /** Replaces the generic shouldDeleteDuringUpdate (kube's Store.ShouldDeleteDuringUpdate; namespaces also wait for spec.finalizers). */
  shouldDeleteDuringUpdate?: (obj: KubeObject, old: KubeObject) => boolean;
}

/** kube-apiserver's maxNameGenerationCreateAttempts: generated names are retried this often on a collision. */
const MAX_GENERATE_NAME_ATTEMPTS = 8;
/** Deletes re-read the object when it changed under them (finalizers added) this many times before giving up. */
const MAX_DELETE_ATTEMPTS = 5;

/** What an update does with the stored object. */
/** `warnings`: the strategy's WarningsOnCreate / WarningsOnUpdate for the object computed. */
type UpdateOutcome = { kind: 'create' | 'update' | 'delete'; object: KubeObject; old?: KubeObject; warnings?: string[] };

/** `metadata` without its managedFields. */
function withoutManagedFields(metadata: KubeObject['metadata']): KubeObject['metadata'] {
  const { managedFields: _m, ...rest } = metadata;
  return rest;
}

/** Thrown out of guaranteedUpdate to leave it without writing; the caller acts on `outcome`. */
class LeaveUpdate {
  readonly outcome: UpdateOutcome | 'deleteNow';
  constructor(outcome: UpdateOutcome | 'deleteNow') {
    this.outcome = outcome;
  }
}

/** Thrown out of validateDeletion when the fresh object needs the finalizer path after all. */
class ChangedBeforeDelete {}

/** A create's or update's request document, for decodeBody: what its strict decoding found (a YAML body's repeats). */
const documentDecoding = (opts: StoreCreateOptions): DocumentDecoding | undefined =>
  opts.documentStrictErrors?.length ? { strictErrors: opts.documentStrictErrors } : undefined;

/**
 * A kind's validate hook on an object its schema refused. The hooks are kube's validation functions, which run on
 * decoded, typed objects, so they may assume the schema's types and fail on what the schema already reported (rules
 * that are a string): that is the client's error, answered by the schema's 422, not the server's. On an object the
 * schema accepted, a hook that throws is a bug and stays one (a 500); a StatusError a hook throws on purpose stands.
 */
function strategyErrors(parsed: ParseResult, validate: () => FieldError[]): FieldError[] {
  if (parsed.ok) return validate();
  try {
    return validate();
  } catch (err) {
    if (err instanceof StatusError) throw err;
    return [];
  }
}

/**
 * The generic REST store of one resource, after k8s.io/apiserver's registry/generic/registry.Store: create, get,
 * list, watch, update, patch, delete and deletecollection with Kubernetes' semantics over any Storage. Every storage
 * error leaves as a StatusError worded with the resource. Objects returned may be shared and frozen; copy to change.
 * Every call may name the request's version (`version` in its options): see the "versions" helpers below.
 */
export class Store<T extends KubeObject = KubeObject> {
  readonly definition: ResourceDefinition<T>;
  readonly keys: StoreKeys;
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #uid: () => string;
  readonly #names: { generateName(base: string): string };
  readonly #apiVersion: string;
  readonly #beforeCreate: StoreOptions['beforeCreate'];
  readonly #shouldDeleteDuringUpdate: (obj: KubeObject, old: KubeObject) => boolean;
  /** Field managers by version and subresource, built on first use (the typed schema of a version once). */
  readonly #fieldManagers = new Map<string, FieldManager>();
  /** Decoded managedFields of this Store's stored objects, shared by its field managers. */
  readonly #storedManagedFields = new StoredManagedFieldsCache();
  /** The kind's versions as field managers see them (typed schemas, conversion). */
  readonly #versions: KindVersions;

  constructor(def: ResourceDefinition<T>, options: StoreOptions) {
    this.definition = def;
    this.keys = new StoreKeys(def as ResourceDefinition, options.keyPrefix);
    this.#storage = def.storedWith ? new ConvertingStorage(options.storage, def.storedWith) : options.storage;
    this.#clock = options.clock ?? realClock;
    this.#uid = options.uid ?? randomUUID;
    this.#names = options.nameGenerator ?? simpleNameGenerator;
    this.#apiVersion = def.group ? `${def.group}/${def.storageVersion.name}` : def.storageVersion.name;
    this.#beforeCreate = options.beforeCreate;
    this.#shouldDeleteDuringUpdate = options.shouldDeleteDuringUpdate ?? shouldDeleteDuringUpdate;
    this.#versions = new KindVersions(def as ResourceDefinition);
  }

  // ---------------------------------------------------------------------------------------------- create

  async create(ctx: RequestContext, input: unknown, opts: StoreCreateOptions = {}): Promise<WriteResult<T>> {
    const other = this.#otherVersion(opts.version);
    const decodedBody = decodeBody(this.#def, input, opts.fieldValidation, opts.version, documentDecoding(opts));
    // kube dedups a create's owner references before its managedFields are recorded, and again after admission.
    const { object: decoded, warning: duplicateOwners } = dedupOwnerReferences(decodedBody.object, false);
    let warnings = duplicateOwners ? [...decodedBody.warnings, duplicateOwners] : decodedBody.warnings;
    this.#matchNamespace(ctx, decoded);
    // The request's fields become its manager's (kube records them before admission, on the request's object).
    const tracked = this.#fieldManager(other).update(null, decoded, opts.fieldManager ?? '');
    decoded.metadata = tracked.metadata;
    // The storage layer refuses it too. kube-apiserver lets that plain error surface as a 500; it is the client's
    // mistake, so it is a 400 here (bad input never answers 5xx), with kube's words.
    if (decoded.metadata.resourceVersion) throw newBadRequest(MESSAGES.rvOnCreate);
    if (this.#beforeCreate) await this.#beforeCreate(ctx, decoded, this.#def);
    let admitted = decoded;
    if (opts.admission?.mutate) {
      await opts.admission.mutate(decoded, null);
      this.#matchNamespace(ctx, decoded);
      const deduped = dedupOwnerReferences(decoded, true);
      admitted = deduped.object;
      if (deduped.warning) warnings = [...warnings, deduped.warning];
    }
    const obj = other ? await this.#toStorage(admitted, other) : admitted;
    const generated = !obj.metadata.name && !!obj.metadata.generateName;
    const sctx = this.#strategyContext(obj);
    let prepared = await this.#prepareCreate(sctx, obj, other);
    warnings = [...warnings, ...this.#def.strategy.warningsOnCreate(sctx, prepared as T)];
    if (opts.admission?.validate) await opts.admission.validate(await this.#out(prepared, other), null);
    if (opts.dryRun) return { object: (await this.#out(prepared, other)) as T, warnings };
    let stored: KubeObject;
    for (let attempt = 1; ; attempt++) {
      const name = prepared.metadata.name as string;
      try {
        stored = await this.#storage.create(this.keys.key(prepared.metadata.namespace, name), prepared);
        break;
      } catch (err) {
        // kube's create handler: an object the storage refuses as too large is written once more without its
        // managedFields, which can be large and which it is valid without.
        if (isStorageError(err, 'RequestTooLarge') && prepared.metadata.managedFields) {
          prepared = { ...prepared, metadata: withoutManagedFields(prepared.metadata) };
          continue;
        }
        if (!(generated && isStorageError(err, 'KeyExists'))) throw this.#mapError(err, name);
        if (attempt >= MAX_GENERATE_NAME_ATTEMPTS) throw newGenerateNameConflict(this.#def.groupResource, name, 1);
        prepared = {
          ...prepared,
          metadata: { ...prepared.metadata, name: this.#names.generateName(prepared.metadata.generateName ?? '') },
        };
      }
    }
    // Outside the loop: a failed conversion of the answer is not a storage error to retry or map.
    return { object: (await this.#out(stored, other)) as T, warnings };
  }

  /**
   * rest.BeforeCreate plus validation: system fields, the strategy's hooks, schema and ObjectMeta rules (422).
   * `other`: the request's version when it is not the storage version (see #schemaErrors).
   */
  async #prepareCreate(sctx: StrategyContext, obj: KubeObject, other?: string): Promise<KubeObject> {
    const m = obj.metadata;
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    this.#def.strategy.prepareForCreate(sctx, obj as T);
    m.uid = this.#uid();
    m.creationTimestamp = rfc3339Seconds(this.#clock.now());
    if (!m.name && m.generateName) m.name = this.#names.generateName(m.generateName);
    const parsed = parseObject(this.#def, this.#def.storageVersion.name, obj);
    const errs = [
      ...(await this.#schemaErrors(parsed, obj, other)),
      ...strategyErrors(parsed, () => this.#def.strategy.validate(sctx, obj as T)),
    ];
    if (errs.length || !parsed.ok) throw invalidError(this.#def, m.name ?? '', errs);
    this.#def.strategy.canonicalize(parsed.object as T);
    return parsed.object;
  }

  // ---------------------------------------------------------------------------------------------- reads

  async get(ctx: RequestContext, name: string, opts: StoreGetOptions = {}): Promise<T> {
    const other = this.#otherVersion(opts.version);
    const key = this.#key(ctx.namespace, name);
    let stored: KubeObject;
    try {
      stored = (await this.#storage.get(key, { resourceVersion: opts.resourceVersion ?? '' })) as KubeObject;
    } catch (err) {
      throw this.#mapError(err, name);
    }
    return (other ? await this.#out(stored, other) : stored) as T;
  }

  async list(ctx: RequestContext, opts: StoreListOptions = {}): Promise<StoreList<T>> {
    const other = this.#otherVersion(opts.version);
    validateListOptions(opts);
    const predicate = selectionPredicate(this.#def, opts);
    let res: Awaited<ReturnType<Storage['list']>>;
    try {
      res = await this.#storage.list(this.keys.prefix(ctx.namespace), {
        resourceVersion: opts.resourceVersion ?? '',
        ...(opts.resourceVersionMatch ? { resourceVersionMatch: opts.resourceVersionMatch } : {}),
        predicate,
      });
    } catch (err) {
      throw this.#mapError(err);
    }
    // The whole page in one conversion (one webhook call, as kube converts a list).
    const items = other ? await this.#outAll(res.items, other) : res.items;
    return { apiVersion: this.#apiVersionOf(other), kind: this.#def.listKind, metadata: res.metadata, items: items as T[] };
  }

  /** A watch of the resource (one namespace or all). BOOKMARK objects carry the kind's apiVersion and kind, as clients decode them. */
  watch(ctx: RequestContext, opts: StoreWatchOptions = {}): Watch {
    const other = this.#otherVersion(opts.version);
    validateWatchOptions(opts);
    const { limit: _l, continue: _c, ...predicate } = selectionPredicate(this.#def, { ...opts, limit: 0, continue: '' });
    let inner: Watch;
    try {
      inner = this.#storage.watch(this.keys.prefix(ctx.namespace), {
        resourceVersion: opts.resourceVersion ?? '',
        predicate,
        ...(opts.allowWatchBookmarks !== undefined ? { allowWatchBookmarks: opts.allowWatchBookmarks } : {}),
        ...(opts.sendInitialEvents !== undefined ? { sendInitialEvents: opts.sendInitialEvents } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
    } catch (err) {
      throw this.#mapError(err);
    }
    return this.#typedWatch(inner, opts.timeoutSeconds, other);
  }

  /**
   * BOOKMARKs typed, and with `other` every object converted to that version: those events are new objects, while
   * in the storage version the storage's (the watch cache's shared, frozen) events pass through untouched.
   */
  #typedWatch(inner: Watch, timeoutSeconds: number | undefined, other: string | undefined): Watch {
    const clock = this.#clock;
    const typeMeta = { apiVersion: this.#apiVersionOf(other), kind: this.#def.kind };
    // An event converted synchronously is yielded without an await; an asynchronous conversion is awaited event by
    // event, so the order stays. One that fails ends the watch with an ERROR event, as kube's watch does.
    const convert = (ev: WatchEvent): WatchEvent | Promise<WatchEvent> => {
      if (!other || ev.type === 'ERROR') return ev;
      const object = this.#out(ev.object as KubeObject, other);
      return object instanceof Promise
        ? object.then(
            (o) => ({ type: ev.type, object: o }) as WatchEvent,
            (err: unknown) => ({ type: 'ERROR', object: ConversionError.watchStatus(err) }) as WatchEvent,
          )
        : ({ type: ev.type, object } as WatchEvent);
    };
    const timer = timeoutSeconds && timeoutSeconds > 0 ? clock.setTimeout(() => inner.stop(), timeoutSeconds * 1000) : undefined;
    const stop = (): void => {
      if (timer) clock.clearTimeout(timer);
      inner.stop();
    };
    return {
      stop,
      async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent> {
        try {
          for await (const ev of inner) {
            if (ev.type === 'BOOKMARK') {
              yield { type: 'BOOKMARK', object: { ...typeMeta, metadata: ev.object.metadata } };
              continue;
            }
            const converted = convert(ev);
            const out = converted instanceof Promise ? await converted : converted;
            yield out;
            if (out.type === 'ERROR' && ev.type !== 'ERROR') break;
          }
        } finally {
          stop();
        }
      },
    };
  }

  // ---------------------------------------------------------------------------------------------- update & patch

  async update(ctx: RequestContext, name: string, input: unknown, opts: StoreUpdateOptions = {}): Promise<UpdateResult<T>> {
    this.#checkSubresource(opts.subresource);
    const other = this.#otherVersion(opts.version);
    const decoded = decodeBody(this.#def, input, opts.fieldValidation, opts.version, documentDecoding(opts));
    // As for a create: owner references deduped before managedFields are recorded, and again after admission.
    const { object: obj, warning: duplicateOwners } = dedupOwnerReferences(decoded.object, false);
    const warnings = duplicateOwners ? [...decoded.warnings, duplicateOwners] : decoded.warnings;
    checkName(obj.metadata.name, name);
    this.#matchName(obj, name);
    this.#matchNamespace(ctx, obj);
    const key = this.#key(obj.metadata.namespace, name);
    const sctx = this.#strategyContext(obj, opts.subresource);
    const res = await this.#runUpdate(key, name, true, opts.dryRun, warnings, true, async (current) => {
      // Create-on-update is a create: admission (the namespace lifecycle) runs as create() runs it, for every try.
      if (!current && this.#beforeCreate && this.#def.strategy.allowCreateOnUpdate() && !sctx.subresource)
        await this.#beforeCreate(ctx, obj, this.#def);
      const tracked = await this.#trackUpdate(current, obj, other, opts.subresource, opts.fieldManager);
      return this.#admitUpdate(ctx, sctx, name, tracked, current, opts.admission, true, other);
    });
    return other ? { ...res, object: (await this.#out(res.object, other)) as T } : res;
  }

  async patch(ctx: RequestContext, name: string, patch: unknown, type: PatchType, opts: StorePatchOptions = {}): Promise<UpdateResult<T>> {
    // Decoded by the caller: held to the JSON decoder's depth limit before any walk (kube's decoder refuses it).
    checkJsonDepth(patch, 'the patch');
    this.#checkSubresource(opts.subresource);
    const other = this.#otherVersion(opts.version);
    const version = other ?? this.#def.storageVersion.name;
    const key = this.#key(ctx.namespace, name);
    let warnings: string[] = [];
    const apply = type === 'apply';
    // kube's patcher creates on apply (forceAllowCreate), but not through a subresource.
    const createOnApply = apply && !opts.subresource;
    const res = await this.#runUpdate(
      key,
      name,
      createOnApply,
      opts.dryRun,
      () => warnings,
      // kube's patcher retries without managedFields too, but not an apply (whose managedFields are the point).
      !apply,
      async (current) => {
        if (!current && !createOnApply) throw newNotFound(this.#def.groupResource, name);
        // Applied to the stored object (as the request's version sees it, as kube's patcher does), so its
        // resourceVersion makes the update conditional unless the patch sets another.
        const target = current && (await this.#out(current, other));
        const manager = opts.fieldManager ?? '';
        const fieldManager = this.#fieldManager(other, opts.subresource);
        // Server-side apply (target null only for an apply that creates): merged by ownership onto the stored
        // object (or onto nothing: created from the patch). fieldValidation does not apply to the configuration's
        // fields: as in kube, an undeclared one is always refused by the typed merge ('field not declared in schema').
        const patched =
          apply || !target
            ? fieldManager.apply(target, patch, manager, opts.force ?? false)
            : type === 'json'
              ? applyJsonPatch(target, patch)
              : type === 'strategic'
                ? // Merge keys and strategies come from the definition; fields without them merge as a merge patch does.
                  applyStrategicMergePatch(target, patch, patchMetaFor(this.#def, version))
                : keepStoredManagedFields(target, patch, applyMergePatch(target, patch));
        // Shown as kube's patchers show it in a Strict refusal: the patched object, or a strategic patch itself.
        const shown = () => (type === 'strategic' ? goFormat(patch) : goJSON(patched));
        const decoded = decodeBody(this.#def, patched, opts.fieldValidation, opts.version, {
          strictErrors: apply ? [] : (opts.documentStrictErrors ?? []),
          shown,
        });
        warnings = decoded.warnings;
        // kube's patcher: an object the patch creates cannot name a uid (it would claim to be one that exists).
        if (!current && decoded.object.metadata.uid)
          throw newConflict(
            this.#def.groupResource,
            name,
            `uid mismatch: the provided object specified uid ${decoded.object.metadata.uid}, and no existing object was found`,
          );
        checkName(decoded.object.metadata.name, name);
        this.#matchName(decoded.object, name);
        this.#matchNamespace(ctx, decoded.object);
        const sctx = this.#strategyContext(decoded.object, opts.subresource);
        if (apply || !target) {
          if (!current && this.#beforeCreate) await this.#beforeCreate(ctx, decoded.object, this.#def);
          return this.#admitUpdate(ctx, sctx, name, decoded.object, current, opts.admission, true, other, true);
        }
        // A scale write's change is made by admission (ScaleREST's hooks): recorded after it.
        if (opts.subresource === 'scale') {
          const scaleApply = opts.scaleApply;
          const record = scaleApply
            ? (obj: KubeObject): KubeObject => {
                const res = fieldManager.apply(target, scaleApply(obj), manager, opts.force ?? false);
                return { ...obj, metadata: { ...obj.metadata, managedFields: res.metadata.managedFields ?? [] } };
              }
            : (obj: KubeObject): KubeObject => fieldManager.update(target, obj, manager);
          return this.#admitUpdate(ctx, sctx, name, decoded.object, current, opts.admission, false, other, false, record);
        }
        const tracked = fieldManager.update(target, decoded.object, manager);
        return this.#admitUpdate(ctx, sctx, name, tracked, current, opts.admission, true, other);
      },
    );
    return other ? { ...res, object: (await this.#out(res.object, other)) as T } : res;
  }

  /**
   * guaranteedUpdate around `compute`; an outcome of "delete" (finalizers emptied on a terminating object) deletes the
   * object instead, conditional on the state it was computed from. dryRun computes against the current object only.
   * With `dropManagedFieldsWhenTooLarge`, an object the storage refuses as too large is computed and written once more
   * without its managedFields, as kube's update and patch handlers retry it.
   */
  async #runUpdate(
    key: string,
    name: string,
    createOnMissing: boolean,
    dryRun: boolean | undefined,
    warnings: string[] | (() => string[]),
    dropManagedFieldsWhenTooLarge: boolean,
    compute: (current: KubeObject | null) => UpdateOutcome | Promise<UpdateOutcome>,
  ): Promise<UpdateResult<T>> {
    const result = (object: KubeObject, created: boolean, deleted: boolean, outcome?: UpdateOutcome): UpdateResult<T> => ({
      object: object as T,
      warnings: [...(typeof warnings === 'function' ? warnings() : warnings), ...(outcome?.warnings ?? [])],
      created,
      deleted,
    });
    const write = async (withoutManaged: boolean): Promise<UpdateResult<T>> => {
      let outcome: UpdateOutcome | undefined;
      try {
        const stored = await this.#storage.guaranteedUpdate(
          key,
          async (current) => {
            outcome = await compute(current);
            if (outcome.kind === 'delete') throw new LeaveUpdate(outcome);
            if (withoutManaged && outcome.object.metadata.managedFields)
              outcome = { ...outcome, object: { ...outcome.object, metadata: withoutManagedFields(outcome.object.metadata) } };
            return outcome.object;
          },
          { ignoreNotFound: createOnMissing },
        );
        return result(stored, outcome?.kind === 'create', false, outcome);
      } catch (err) {
        if (!(err instanceof LeaveUpdate) || err.outcome === 'deleteNow') throw err;
        const old = err.outcome.old as KubeObject;
        const last = await this.#storage.delete(key, {
          preconditions: { uid: old.metadata.uid, resourceVersion: old.metadata.resourceVersion },
        });
        return result(last, false, true, err.outcome);
      }
    };
    try {
      if (dryRun) {
        const current = await this.#storage.get(key, { ignoreNotFound: true });
        const outcome = await compute(current);
        return result(outcome.object, outcome.kind === 'create', outcome.kind === 'delete', outcome);
      }
      try {
        return await write(false);
      } catch (err) {
        if (!(dropManagedFieldsWhenTooLarge && isStorageError(err, 'RequestTooLarge'))) throw err;
        return await write(true);
      }
    } catch (err) {
      throw this.#mapError(err, name);
    }
  }

  /**
   * Mutating admission on (a copy of) the new object, the update itself, then validating admission on the result.
   * With `other` the input is in that version: admission sees it (and the stored object) in it, the update converts it.
   */
  async #admitUpdate(
    ctx: RequestContext,
    sctx: StrategyContext,
    name: string,
    input: KubeObject,
    current: KubeObject | null,
    admission: WriteAdmission | undefined,
    shared: boolean,
    other?: string,
    forceAllowCreate = false,
    afterMutate?: (obj: KubeObject) => KubeObject,
  ): Promise<UpdateOutcome> {
    let obj = input;
    if (admission?.mutate) {
      // The input is reused when storage retries on a conflict: admission must start from it afresh each time.
      if (shared) obj = copyJson(input);
      await admission.mutate(obj, current && (await this.#out(current, other)));
      this.#matchName(obj, name);
      this.#matchNamespace(ctx, obj);
    }
    // kube dedups owner references after mutating admission (a patch's only then).
    const deduped = dedupOwnerReferences(obj, true);
    const duplicateOwners = deduped.warning;
    obj = deduped.object;
    if (afterMutate) obj = afterMutate(obj);
    if (other) obj = await this.#toStorage(obj, other);
    const outcome = await this.#computeUpdate(sctx, obj, current, other, forceAllowCreate);
    if (admission?.validate)
      await admission.validate(
        await this.#out(outcome.object, other),
        outcome.kind === 'create' || !current ? null : await this.#out(current, other),
      );
    return duplicateOwners ? { ...outcome, warnings: [duplicateOwners, ...(outcome.warnings ?? [])] } : outcome;
  }

  /** The body of Store.Update's tryUpdate: create-on-update, optimistic concurrency, rest.BeforeUpdate and validation. */
  async #computeUpdate(
    sctx: StrategyContext,
    input: KubeObject,
    current: KubeObject | null,
    other?: string,
    forceAllowCreate = false,
  ): Promise<UpdateOutcome> {
    const def = this.#def;
    const strategy = def.strategy;
    const name = input.metadata.name ?? '';
    let obj = copyKeepingManagedFields(input);
    if (!current) {
      if (!(forceAllowCreate || strategy.allowCreateOnUpdate()) || sctx.subresource) throw newNotFound(def.groupResource, name);
      // Storage would clear it, as etcd3's PrepareObjectForStorage does.
      delete obj.metadata.resourceVersion;
      const created = await this.#prepareCreate(sctx, obj, other);
      return { kind: 'create', object: created, warnings: strategy.warningsOnCreate(sctx, created as T) };
    }
    const old = current;
    const rv = obj.metadata.resourceVersion;
    if (!rv) {
      if (!strategy.allowUnconditionalUpdate())
        throw invalidError(def, name, [fieldErrors.invalid('metadata.resourceVersion', GO_ZERO_UINT, 'must be specified for an update')]);
    } else if (rv !== old.metadata.resourceVersion) {
      throw newConflict(def.groupResource, name, OPTIMISTIC_LOCK_ERROR_MSG);
    }
    if (sctx.subresource === 'status') {
      // The status subresource takes status and nothing else (the custom-resource status strategy), and the
      // managedFields that recorded it.
      const next = copyJson(old) as KubeObject;
      if (obj.status === undefined) delete next.status;
      else next.status = obj.status;
      if (obj.metadata.managedFields === undefined) delete next.metadata.managedFields;
      else next.metadata.managedFields = obj.metadata.managedFields;
      obj = next;
    } else {
      obj.metadata.resourceVersion = old.metadata.resourceVersion;
      if (old.metadata.generation === undefined) delete obj.metadata.generation;
      else obj.metadata.generation = old.metadata.generation;
      strategy.prepareForUpdate(sctx, obj as T, old as T);
    }
    const m = obj.metadata;
    const o = old.metadata;
    if (!m.uid && o.uid) m.uid = o.uid;
    if (o.creationTimestamp) m.creationTimestamp = o.creationTimestamp;
    if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp;
    if (o.deletionGracePeriodSeconds !== undefined && m.deletionGracePeriodSeconds === undefined)
      m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
    // Ratcheting: list uniqueness is only enforced on an update when the old object kept it.
    const vopts = { listSetsAndMaps: !hasListSetOrMapDuplicates(def, def.storageVersion.name, old) };
    // the old object too: transition rules (CEL oldSelf) compare against it
    const parsed = parseObject(def, def.storageVersion.name, obj, { ...vopts, old });
    const errs: FieldError[] = [
      ...(await this.#schemaErrors(parsed, obj, other, vopts)),
      ...validateObjectMetaUpdate(obj, old),
      ...strategyErrors(parsed, () => strategy.validateUpdate(sctx, obj as T, old as T)),
    ];
    if (errs.length || !parsed.ok) throw invalidError(def, name, errs);
    strategy.canonicalize(parsed.object as T);
    return {
      kind: this.#shouldDeleteDuringUpdate(parsed.object, old) ? 'delete' : 'update',
      object: parsed.object,
      old,
      warnings: strategy.warningsOnUpdate(sctx, parsed.object as T, old as T),
    };
  }

  // ---------------------------------------------------------------------------------------------- delete

  async delete(ctx: RequestContext, name: string, opts: StoreDeleteOptions = {}): Promise<DeleteResult<T>> {
    const other = this.#otherVersion(opts.version);
    const key = this.#key(ctx.namespace, name);
    const validateDeletion = opts.validateDeletion;
    let result: DeleteResult;
    // Admission sees the object in the request's version.
    if (other && validateDeletion)
      opts = { ...opts, validateDeletion: async (current) => validateDeletion(await this.#out(current, other)) };
    try {
      for (let attempt = 1; ; attempt++) {
        const current = (await this.#storage.get(key)) as KubeObject;
        const outcome = await this.#deleteOnce(key, current, opts, attempt < MAX_DELETE_ATTEMPTS);
        if (outcome) {
          result = outcome;
          break;
        }
      }
    } catch (err) {
      throw this.#mapError(err, name);
    }
    return (other ? { ...result, object: await this.#out(result.object, other) } : result) as DeleteResult<T>;
  }

  /**
   * One pass of Store.Delete against `current`: the finalizer path keeps the object terminating, otherwise it is
   * deleted. undefined when the object gained finalizers before the delete landed, and the caller should try again.
   */
  async #deleteOnce(key: string, current: KubeObject, opts: StoreDeleteOptions, mayRetry: boolean): Promise<DeleteResult | undefined> {
    const kind = this.#def.groupKind;
    const policy = opts.propagationPolicy;
    checkDeletePreconditions(kind, current, opts.preconditions);
    const preconditions: Preconditions | undefined = opts.preconditions ? { ...opts.preconditions } : undefined;
    // The object as the delete leaves it, or null when nothing keeps it.
    const terminating = (existing: KubeObject): KubeObject | null => {
      checkDeletePreconditions(kind, existing, opts.preconditions);
      const obj = this.#preparedForDelete(existing, true);
      const finalizers = finalizersForDeletion(obj, policy);
      if (finalizers) obj.metadata.finalizers = finalizers;
      if (!obj.metadata.finalizers?.length) return null;
      markAsDeleting(obj, this.#clock.now());
      return obj;
    };
    if (opts.validateDeletion) await opts.validateDeletion(current);
    const prepared = this.#preparedForDelete(current);
    if (prepared.metadata.finalizers?.length || finalizersForDeletion(prepared, policy)) {
      if (opts.dryRun) {
        const kept = terminating(current);
        return kept ? { object: kept, deleted: false } : { object: current, deleted: true };
      }
      try {
        const kept = await this.#storage.guaranteedUpdate(
          key,
          (existing) => {
            const next = existing && terminating(existing);
            if (!next) throw new LeaveUpdate('deleteNow');
            return next;
          },
          preconditions ? { preconditions } : {},
        );
        return { object: kept, deleted: false };
      } catch (err) {
        if (!(err instanceof LeaveUpdate)) throw err;
      }
    }
    if (opts.dryRun) return { object: current, deleted: true };
    try {
      const last = await this.#storage.delete(key, {
        ...(preconditions ? { preconditions } : {}),
        validateDeletion: async (existing) => {
          const next = this.#preparedForDelete(existing);
          if (mayRetry && (next.metadata.finalizers?.length || finalizersForDeletion(next, policy))) throw new ChangedBeforeDelete();
          // Admission saw `current`; a different stored state must be admitted again.
          if (opts.validateDeletion && existing.metadata.resourceVersion !== current.metadata.resourceVersion)
            await opts.validateDeletion(existing);
        },
      });
      return { object: last, deleted: true };
    } catch (err) {
      if (err instanceof ChangedBeforeDelete) return undefined;
      throw err;
    }
  }

  /** `obj` as the strategy prepares it for deletion (prepareForDelete, on a copy); `obj` itself without that hook, unless `copy`. */
  #preparedForDelete(obj: KubeObject, copy = false): KubeObject {
    const prepare = this.#def.strategy.prepareForDelete;
    if (!prepare && !copy) return obj;
    const out = copyJson(obj) as T;
    prepare?.(out, this.#clock.now());
    return out;
  }

  /** Deletes every object a list with `listOpts` returns, each by the rules of delete; returns them as deleted or left terminating. */
  async deleteCollection(ctx: RequestContext, listOpts: StoreListOptions = {}, deleteOpts: StoreDeleteOptions = {}): Promise<StoreList<T>> {
    // The list answered is in the version of either options; the objects are listed and deleted as stored.
    const version = listOpts.version ?? deleteOpts.version;
    const other = this.#otherVersion(version);
    if (version !== undefined) {
      listOpts = { ...listOpts, version: undefined };
      deleteOpts = { ...deleteOpts, version: undefined };
      const validateDeletion = deleteOpts.validateDeletion;
      if (other && validateDeletion) deleteOpts.validateDeletion = async (current) => validateDeletion(await this.#out(current, other));
    }
    const items: KubeObject[] = [];
    let page = await this.list(ctx, listOpts);
    const matched = [...page.items];
    while (page.metadata.continue) {
      page = await this.list(ctx, {
        ...listOpts,
        resourceVersion: undefined,
        resourceVersionMatch: undefined,
        continue: page.metadata.continue,
      });
      matched.push(...page.items);
    }
    for (const obj of matched) {
      try {
        const res = await this.delete({ namespace: obj.metadata.namespace }, obj.metadata.name ?? '', deleteOpts);
        items.push(res.object);
      } catch (err) {
        // Deleted by someone else meanwhile: kube-apiserver's DeleteCollection skips it too.
        if (!isNotFound(err)) throw err;
      }
    }
    return {
      apiVersion: this.#apiVersionOf(other),
      kind: this.#def.listKind,
      metadata: {},
      items: (other ? await this.#outAll(items, other) : items) as T[],
    };
  }

  // ---------------------------------------------------------------------------------------------- helpers

  get #def(): ResourceDefinition {
    return this.definition as ResourceDefinition;
  }

  // ---------------------------------------------------------------------------------------------- versions
  // The Store works on storage-version objects (the strategy's hooks are typed for it). A request in another
  // served version is decoded in it and converted through the hub on the way in and on the way out; the storage
  // version itself costs no conversion at all.

  /** The request's version when it is one to convert to (not the storage version); a version the kind lacks is a 400. */
  #otherVersion(version: string | undefined): string | undefined {
    const def = this.#def;
    if (version === undefined || version === def.storageVersion.name) return undefined;
    if (!def.version(version))
      throw newBadRequest(
        `no kind ${JSON.stringify(def.kind)} is registered for version ${JSON.stringify(formatGroupVersion({ group: def.group, version }))}`,
      );
    return version;
  }

  #apiVersionOf(other: string | undefined): string {
    return other ? formatGroupVersion({ group: this.#def.group, version: other }) : this.#apiVersion;
  }

  /**
   * A (stored) object as the request's version sees it: itself in the storage version, else a converted copy — a
   * promise when the kind converts asynchronously (its `conversion`), whose failure is a 500 InternalError.
   */
  #out(obj: KubeObject, other: string | undefined): KubeObject | Promise<KubeObject> {
    return other ? convertOne(this.#def, obj, other) : obj;
  }

  /** Objects as the request's version sees them, in one conversion. */
  #outAll(objs: KubeObject[], other: string): KubeObject[] | Promise<KubeObject[]> {
    return convertObjects(this.#def, objs, other);
  }

  /**
   * A decoded body of version `other` converted to the storage version. Converters may assume a body their version's
   * schema accepts: when one throws on a body the schema refuses, the schema's errors are the answer (422).
   */
  async #toStorage(obj: KubeObject, other: string): Promise<KubeObject> {
    try {
      return await convertOne(this.#def, obj, this.#def.storageVersion.name);
    } catch (err) {
      // A failed asynchronous conversion may be the webhook refusing an invalid body: the schema decides too.
      if (err instanceof StatusError && !(err instanceof ConversionError)) throw err;
      const parsed = parseObject(this.#def, other, obj);
      if (!parsed.ok) throw invalidError(this.#def, obj.metadata.name ?? '', parsed.errors);
      throw err;
    }
  }

  /**
   * The schema (and ObjectMeta) errors of a prepared storage-version object. For a request in `other`, as that
   * version's schema finds them on the object converted back: kube-apiserver validates a custom resource in the
   * version of its endpoint (the CR store decodes to it, the strategy holds that version's validator), so the field
   * paths are the request's. The storage schema's own errors still count when the request's version finds none (a
   * converter that produces an invalid hub object). The strategy's validate hooks see the storage version.
   */
  async #schemaErrors(parsed: ParseResult, obj: KubeObject, other: string | undefined, opts: ValidateOptions = {}): Promise<FieldError[]> {
    if (other) {
      let inVersion: ParseResult | undefined;
      try {
        inVersion = parseObject(this.#def, other, await convertOne(this.#def, obj, other), opts);
      } catch (err) {
        // A converter that fails on an invalid hub object: the storage schema's errors say why. An asynchronous
        // conversion that fails (a webhook down) fails the write: nothing unvalidated is stored.
        if (this.#def.conversion) throw err;
      }
      if (inVersion && !inVersion.ok) return inVersion.errors;
    }
    return parsed.ok ? [] : parsed.errors;
  }

  /**
   * The field manager of requests in `other` (undefined: the storage version) on the main resource or a subresource:
   * built once, with the version's typed schema and the endpoint's reset fields.
   */
  #fieldManager(other: string | undefined, subresource?: string): FieldManager {
    const version = other ?? this.#def.storageVersion.name;
    const key = `${version}/${subresource ?? ''}`;
    let fm = this.#fieldManagers.get(key);
    if (!fm) {
      const typed = this.#versions.typed(version);
      fm = new FieldManager({
        apiVersion: this.#apiVersionOf(other),
        kind: this.#def.kind,
        ...(subresource ? { subresource } : {}),
        typed,
        typeFor: (apiVersion) => this.#versions.typeFor(apiVersion, typed),
        converter: this.#versions.converter,
        resetFields: resetFieldsOf(this.#def, version, subresource),
        ...(subresource === 'scale' ? { conflictPath: scaleConflictPath(this.#def) } : {}),
        now: () => rfc3339Seconds(this.#clock.now()),
        storedCache: this.#storedManagedFields,
      });
      this.#fieldManagers.set(key, fm);
    }
    return fm;
  }

  /** `obj` (in `other`) with managedFields recording the update of `current` (stored) by `manager`. */
  async #trackUpdate(
    current: KubeObject | null,
    obj: KubeObject,
    other: string | undefined,
    subresource: string | undefined,
    manager: string | undefined,
  ): Promise<KubeObject> {
    const live = current && (await this.#out(current, other));
    return this.#fieldManager(other, subresource).update(live, obj, manager ?? '');
  }

  #strategyContext(obj: KubeObject, subresource?: string): StrategyContext {
    return { namespace: obj.metadata.namespace ?? '', ...(subresource ? { subresource } : {}) };
  }

  #key(namespace: string | undefined, name: string): string {
    if (!name) throw newBadRequest('resource name may not be empty');
    if (this.#def.namespaced && !namespace) throw newBadRequest(`a namespace is required for ${this.#resource}`);
    return this.keys.key(namespace, name);
  }

  get #resource(): string {
    const gr = this.#def.groupResource;
    return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
  }

  #checkSubresource(subresource: string | undefined): void {
    // Server-core routes only declared subresources; this guards direct callers.
    if (subresource === 'status' && !this.#def.subresources.status) throw newBadRequest(`${this.#resource} has no status subresource`);
    if (subresource === 'scale' && !this.#def.subresources.scale) throw newBadRequest(`${this.#resource} has no scale subresource`);
  }

  /** rest.EnsureObjectNamespaceMatchesRequestNamespace; without a request namespace the object's own is kept. */
  #matchNamespace(ctx: RequestContext, obj: KubeObject): void {
    const m = obj.metadata;
    if (!this.#def.namespaced) {
      // Cluster-scoped: a namespace in the body is cleared, as for a request without one.
      delete m.namespace;
      return;
    }
    const want = ctx.namespace;
    if (!want || m.namespace === want) return;
    if (!m.namespace) m.namespace = want;
    else throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
  }

  /** A name mutating admission left out is the URL's; one it changed is refused. */
  #matchName(obj: KubeObject, name: string): void {
    const m = obj.metadata;
    if (m.name && m.name !== name) throw newBadRequest(`the name of the object (${m.name}) does not match the name on the URL (${name})`);
    m.name = name;
  }

  #mapError(err: unknown, name?: string): unknown {
    return isStorageError(err) ? err.toStatusError(this.#def.groupResource, name) : err;
  }
}

/** Go prints the uint64 zero of an unset resourceVersion with %#v as 0x0; this value prints the same. */
const GO_ZERO_UINT = Object.assign(() => 0, { toString: () => '0x0' });

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A merge patch's result with the stored object's own managedFields list when the patch leaves them alone: the same
 * entries as the copy the patch made, but ones storage shares with the next revision instead of copying them again.
 */
function keepStoredManagedFields(target: KubeObject, patch: unknown, patched: unknown): unknown {
  const entries = target.metadata?.managedFields;
  if (entries === undefined || !isPlainObject(patch) || !isPlainObject(patched) || !isPlainObject(patched.metadata)) return patched;
  const pm = patch.metadata;
  if (pm !== undefined && !(isPlainObject(pm) && !Object.hasOwn(pm, 'managedFields'))) return patched;
  patched.metadata.managedFields = entries;
  return patched;
}

/**
 * kube merges a scale apply into the Scale (ScaleHandler.ToSubresource): a conflict is at the Scale's .spec.replicas,
 * not the parent's path (.spec.size for a kind that keeps the count there).
 */
function scaleConflictPath(def: ResourceDefinition): (path: string) => string {
  const replicasPath = def.subresources.scale?.specReplicasPath;
  return (path) => (path === replicasPath ? '.spec.replicas' : path);
}
