import type { KubeObject, ObjectList } from '@kapi/apimachinery';
import type { Preconditions, ResourceVersionMatch } from '@kapi/storage';

/** What the Store knows of a request: the namespace of its path (undefined = all namespaces, or none). */
export interface RequestContext {
  namespace?: string;
}

/** How unknown fields in a request body are handled (metav1 fieldValidation). */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/**
 * Admission for one write, as the API server runs it: `mutate` before the strategy sees the object (it may change
 * `obj` in place), `validate` on the final object after the strategy's validation, inside the storage update (so it
 * sees the state the write is computed from, on every retry). `old` is the stored object, null on create.
 * Both objects are in the request's version (the options' `version`, converted from the stored object when that is
 * another), as kube-apiserver admits a custom resource in the version of its endpoint.
 */
export interface WriteAdmission {
  mutate?(obj: KubeObject, old: KubeObject | null): Promise<void>;
  validate?(obj: KubeObject, old: KubeObject | null): Promise<void>;
}

export interface StoreCreateOptions {
  /**
   * The request's version (its URL's, e.g. "v1beta1"): bodies are decoded as that version and must name it, and
   * objects come back in it, converted through the hub (the storage version) when it is another. Unset: the
   * storage version, with the body's apiVersion and kind not looked at.
   */
  version?: string;
  /** Validate and return the result without storing it (dryRun=All). */
  dryRun?: boolean;
  /** Default Warn, as kube-apiserver's. */
  fieldValidation?: FieldValidation;
  admission?: WriteAdmission;
  /**
   * The manager of the write, recorded in metadata.managedFields (server-core passes the fieldManager parameter, else
   * the User-Agent's prefix). Unset or empty: "unknown", as kube names a nameless manager.
   */
  fieldManager?: string;
  /**
   * What strict decoding of the request's document found that the object decoded from it no longer shows, worded as
   * kube words it: a YAML body's repeated keys (YAMLToJSONStrict's `error converting YAML to JSON: yaml: unmarshal
   * errors:\n  line 3: key "a" already set in map`), a json, merge or strategic patch document's (`duplicate field
   * "data.a"`) and a JSON patch's undeclared operation fields (`json patch unknown field "[0].extra"`). Under
   * fieldValidation Strict or Warn, reported before the decoded object's own duplicate and unknown fields (server-core
   * finds them in the request body). Ignored by an apply patch, whose document's repeats server-core reports itself.
   */
  documentStrictErrors?: readonly string[];
}

export interface StoreUpdateOptions extends StoreCreateOptions {
  /**
   * "status": only status changes (the status subresource). "scale": the write of the scale subresource (ScaleREST),
   * whose changes admission makes: they are recorded in managedFields after mutating admission, as the scale's manager.
   */
  subresource?: 'status' | 'scale';
}

export interface StorePatchOptions extends StoreUpdateOptions {
  /** An apply patch takes the fields other managers own instead of failing with a conflict (PatchOptions.force). */
  force?: boolean;
  /**
   * With subresource "scale": the write is an apply of the scale, recorded as this apply configuration of the parent
   * (its replicas at the spec replicas path), made from the object admission left — ownership and conflicts as an
   * apply of the parent through the subresource (kube's ScaleHandler maps them the same way).
   */
  scaleApply?: (obj: KubeObject) => Record<string, unknown>;
}

/** json = application/json-patch+json, merge = merge-patch, strategic = strategic-merge-patch, apply = apply-patch. */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface StoreGetOptions {
  resourceVersion?: string;
  /** The version of the object returned (see StoreCreateOptions.version). */
  version?: string;
}

export interface StoreListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  /**
   * The version of the list (its apiVersion) and of its items, or of a watch's objects, BOOKMARKs included (see
   * StoreCreateOptions.version). A field selector names this version's selectable fields (see selectorVersion).
   */
  version?: string;
  /**
   * The version whose selectable fields a field selector names, read on the object in that version (a version's own,
   * ResourceVersion.selectableFields, else the definition's, on the stored object). Default: `version`. For a request
   * answered from stored objects in another version than its own (server-core builds Tables from them).
   */
  selectorVersion?: string;
}

export interface StoreWatchOptions extends StoreListOptions {
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  /** Ends the watch after this many seconds (on the Store's clock). */
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface StoreDeleteOptions {
  preconditions?: Preconditions;
  /** Accepted and ignored: kinds defined with defineResource delete without a grace period, as custom resources do. */
  gracePeriodSeconds?: number;
  propagationPolicy?: PropagationPolicy;
  dryRun?: boolean;
  /** The version of the object returned, and of the one validateDeletion sees (see StoreCreateOptions.version). */
  version?: string;
  /** Validating admission of the deletion, called with the fresh stored object before it is deleted or marked. */
  validateDeletion?: (current: KubeObject) => Promise<void>;
}

export interface WriteResult<T extends KubeObject = KubeObject> {
  object: T;
  /** Warnings for the client (unknown fields under fieldValidation=Warn). */
  warnings: string[];
}

export interface UpdateResult<T extends KubeObject = KubeObject> extends WriteResult<T> {
  /** The update created the object (create-on-update). */
  created: boolean;
  /** The update emptied the finalizers of a terminating object, which deleted it; `object` is its last stored state. */
  deleted: boolean;
}

export interface DeleteResult<T extends KubeObject = KubeObject> {
  object: T;
  /** false when the object is kept, terminating, until its finalizers are gone. */
  deleted: boolean;
}

export type StoreList<T extends KubeObject = KubeObject> = ObjectList<T>;
