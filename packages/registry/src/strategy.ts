import { copyJson, type FieldError, jsonEqual, type KubeObject } from '@kapi/apimachinery';
import type { ObjectAttributes } from '@kapi/storage';
import type { ScaleSubresource } from './resource-definition.ts';
import { readFieldPath } from './simple-path.ts';
import { validateScaleFields } from './store/scale.ts';
import { finalizerWarnings } from './validate-object-meta.ts';

/**
 * Strategy hooks: what a kind adds to the generic create and update flow, after k8s.io/apiserver's
 * RESTCreateStrategy / RESTUpdateStrategy. The Store calls them on its own private copy of the object, so
 * `prepare*` and `canonicalize` change it in place; `old` is the stored object and is never changed.
 * Schema and ObjectMeta validation are the Store's (validateObject); `validate*` add rules a schema cannot say.
 */

/** What a hook knows of the request. */
export interface StrategyContext {
  /** The namespace of the request, "" for cluster-scoped kinds. */
  namespace?: string;
  /** "status", "scale", … when the request targets a subresource. */
  subresource?: string;
}

export interface CreateStrategy<T extends KubeObject = KubeObject> {
  /** Clears what a client may not set on create (status when a status subresource exists) and sets generation 1. */
  prepareForCreate(ctx: StrategyContext, obj: T): void;
  /** Extra validation of a new object. */
  validate(ctx: StrategyContext, obj: T): FieldError[];
  /** Normalizes an object after validation, before it is stored. */
  canonicalize(obj: T): void;
  /** Warning headers for a valid new object (WarningsOnCreate). */
  warningsOnCreate(ctx: StrategyContext, obj: T): string[];
}

export interface UpdateStrategy<T extends KubeObject = KubeObject> {
  /** Keeps what an update of the main resource may not change (status when a status subresource exists) and bumps generation when the spec changes. */
  prepareForUpdate(ctx: StrategyContext, obj: T, old: T): void;
  /** Extra validation of an update. */
  validateUpdate(ctx: StrategyContext, obj: T, old: T): FieldError[];
  canonicalize(obj: T): void;
  /** Warning headers for a valid update (WarningsOnUpdate). */
  warningsOnUpdate(ctx: StrategyContext, obj: T, old: T): string[];
  /** Whether PUT to a missing name creates it. */
  allowCreateOnUpdate(): boolean;
  /** Whether PUT without metadata.resourceVersion is accepted (otherwise 422, as for custom resources). */
  allowUnconditionalUpdate(): boolean;
}

export interface Strategy<T extends KubeObject = KubeObject> extends CreateStrategy<T>, UpdateStrategy<T> {
  /**
   * Runs on a private copy of the stored object when a delete starts, before the finalizers decide whether it is
   * kept: a kind whose deletion needs work first adds a finalizer of its own here (kube's CRD Delete adds
   * `customresourcecleanup.apiextensions.k8s.io` and the Terminating condition). Optional.
   */
  prepareForDelete?(obj: T, nowMs: number): void;
  /** Labels and the fields selectors may name: metadata.name, metadata.namespace and the kind's selectable fields. */
  getAttrs(obj: T): ObjectAttributes;
}

/** What the default strategy needs to know of its kind. */
export interface StrategySubject {
  readonly namespaced: boolean;
  readonly subresources: { readonly status: boolean; readonly scale?: ScaleSubresource };
  readonly selectableFields: readonly { readonly jsonPath: string }[];
}

/** Everything but metadata (and status, when it has its own subresource): what a generation counts changes of. */
function specPart(obj: KubeObject, statusSeparate: boolean): Record<string, unknown> {
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = obj;
  if (statusSeparate) delete rest.status;
  return rest;
}

function attrValue(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/**
 * The behaviour of a custom resource in kube-apiserver: status is the status subresource's when there is one,
 * generation starts at 1 and grows on every change outside metadata (and status), no create-on-update,
 * updates must name the resourceVersion they replace, a finalizer added without a domain gets a warning, and with a
 * scale subresource the fields it reads must hold what it can read (a write through the status subresource: the
 * status ones only), as kube's custom resource validator checks them.
 */
export function defaultStrategy<T extends KubeObject = KubeObject>(subject: StrategySubject): Strategy<T> {
  const statusSeparate = subject.subresources.status;
  const selectable = subject.selectableFields.map((f) => ({ name: f.jsonPath.slice(1), path: f.jsonPath }));
  const scale = subject.subresources.scale;
  const scaleErrors = (ctx: StrategyContext, obj: KubeObject): FieldError[] =>
    scale ? validateScaleFields(obj, scale, { spec: ctx.subresource !== 'status', status: true }) : [];
  return {
    prepareForCreate(_ctx, obj) {
      if (statusSeparate) delete obj.status;
      obj.metadata.generation = 1;
    },
    validate: scaleErrors,
    canonicalize() {},
    warningsOnCreate: (_ctx, obj) => finalizerWarnings(obj, undefined),
    prepareForUpdate(_ctx, obj, old) {
      if (statusSeparate) {
        if (old.status === undefined) delete obj.status;
        else (obj as KubeObject).status = copyJson(old.status);
      }
      const oldGen = old.metadata.generation ?? 0;
      obj.metadata.generation = jsonEqual(specPart(obj, statusSeparate), specPart(old, statusSeparate)) ? oldGen : oldGen + 1;
    },
    validateUpdate: (ctx, obj) => scaleErrors(ctx, obj),
    warningsOnUpdate: (_ctx, obj, old) => finalizerWarnings(obj, old),
    allowCreateOnUpdate: () => false,
    allowUnconditionalUpdate: () => false,
    getAttrs(obj) {
      const fields: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
      if (subject.namespaced) fields['metadata.namespace'] = obj.metadata.namespace ?? '';
      for (const f of selectable) fields[f.name] = attrValue(readFieldPath(obj, f.path));
      return { labels: obj.metadata.labels ?? {}, fields };
    },
  };
}
