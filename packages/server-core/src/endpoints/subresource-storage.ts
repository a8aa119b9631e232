import type { GroupVersionKind, KubeObject } from '@kapi/apimachinery';
import type { PatchType, RequestContext as StoreRequestContext, WriteAdmission } from '@kapi/registry';
import type { RequestContext } from '../filters/context.ts';
import type { RequestInfo } from '../request-info.ts';
import type { WriteOptions } from './request-options.ts';

/**
 * A subresource is a storage registered under `resource/subresource` (kube's storage map: pods/status, deployments/scale,
 * namespaces/finalize, serviceaccounts/token), served through the verb interfaces below it implements, as kube's
 * installer registers a route per rest.Getter, rest.Updater, rest.Patcher, rest.NamedCreater. A verb it lacks is a 405.
 */

/** What a subresource storage is told of every request. */
export interface SubresourceRequest {
  /** The HTTP request (user, headers, URL; warnings are added to it). */
  readonly ctx: RequestContext;
  /** The resolved path: apiVersion, namespace, name (the parent object's), resource and subresource. */
  readonly info: RequestInfo;
  /** The parent's Store context: `{ namespace }` of a namespaced kind, `{}` else. */
  readonly context: StoreRequestContext;
}

export interface SubresourceGetRequest extends SubresourceRequest {
  /** The `resourceVersion` query parameter, when sent. */
  readonly resourceVersion?: string;
  /**
   * The version a storage of the parent's kind answers in: the request's, or undefined (the storage version) when a
   * Table is asked for, whose cells read the printer columns' fields of the stored object (as the parent's GET).
   */
  readonly version?: string;
}

export interface SubresourceWriteRequest extends SubresourceRequest {
  /** dryRun, fieldValidation and fieldManager of the query. */
  readonly options: WriteOptions;
  /**
   * What strict decoding of the request's document (a PATCH's JSON, a YAML body of the parent's kind) found that the
   * object decoded from it no longer shows, worded (the Store's documentStrictErrors), for fieldValidation to report
   * with the object's own unknown fields.
   */
  readonly documentStrictErrors?: readonly string[];
  /**
   * The Store's admission hooks for a write of the parent's own object with this request's attributes (the parent's
   * kind and resource, this subresource): mutating admission and the kind's write checks, then validating admission.
   * What a storage of the parent's kind passes to the Store. Undefined when nothing admits.
   */
  readonly storeAdmission: WriteAdmission | undefined;
  /**
   * Mutating and validating admission alone, with this request's attributes and the storage's kind (its `kind`, else
   * the parent's): what a storage of its own kind runs on objects of that kind, as kube admits a scale write as an
   * autoscaling/v1 Scale. Undefined without admission.
   */
  readonly admission: WriteAdmission | undefined;
  /**
   * The parent kind's write checks alone, a mutate hook on the parent's object (the parent's kind in the attributes):
   * what a storage of its own kind runs on the parent object it changes. Undefined when the kind has none.
   */
  readonly writeChecks: WriteAdmission | undefined;
}

/** What a write answers: the object, and whether it was created (201) and warnings. */
export interface SubresourceWriteResult {
  readonly object: unknown;
  readonly created?: boolean;
  readonly warnings?: readonly string[];
}

/**
 * A write's body: for a storage of the parent's kind, what the parent's create would take (raw JSON bytes, or an object
 * decoded from YAML or protobuf); for a storage of its own kind, an object of that kind, apiVersion and kind defaulted.
 */
export type SubresourceBody = Uint8Array | KubeObject;

/** GET …/{name}/{subresource}. */
export interface SubresourceGetter {
  get(request: SubresourceGetRequest): Promise<unknown>;
}

/** PUT …/{name}/{subresource}. */
export interface SubresourceUpdater {
  update(request: SubresourceWriteRequest, body: SubresourceBody): Promise<SubresourceWriteResult>;
}

/** PATCH …/{name}/{subresource}: `patch` is the decoded patch document. */
export interface SubresourcePatcher {
  patch(request: SubresourceWriteRequest, patch: unknown, type: PatchType): Promise<SubresourceWriteResult>;
}

/**
 * POST …/{name}/{subresource} (kube's NamedCreater): answered with 201. The handler runs mutating and validating
 * admission on the body before (CREATE, the storage's kind, the parent's resource, this subresource).
 */
export interface SubresourceCreater {
  create(request: SubresourceWriteRequest, body: SubresourceBody): Promise<SubresourceWriteResult>;
}

/**
 * Any method on …/{name}/{subresource}[/{path}] (kube's rest.Connecter: proxy): the storage answers the request
 * itself (nothing of it is decoded or admitted first).
 */
export interface SubresourceConnecter {
  connect(request: SubresourceRequest): Promise<void>;
}

/** What every subresource storage says of itself. */
export interface SubresourceKind {
  /**
   * The kind it reads and answers with (kube's New()), e.g. autoscaling/v1 Scale. Undefined: the parent's own kind in
   * the request's version (status, finalize); its bodies are decoded as the parent's, and its GET may be asked for as
   * PartialObjectMetadata.
   */
  readonly kind?: GroupVersionKind;
  /**
   * Whether a GET may be answered as a Table (kube's rest.TableConvertor on the storage), made with the parent's
   * printer columns from the object the storage reads: kube's StatusREST serves the parent's Table, and a custom
   * resource's scale scope shares its table convertor, so `kubectl get <kind> x --subresource=scale` prints the
   * Scale with the kind's columns. Default: true for a storage of the parent's kind, false for one of its own kind
   * (then a client asking for a Table gets the object, as kube answers a storage without a table convertor).
   */
  readonly table?: boolean;
  /** The response as audit records it, when it holds a credential (a TokenRequest's token) that must not be logged. */
  auditResponse?(response: unknown): unknown;
}

/** A subresource storage: its kind and any combination of the verb interfaces. */
export type SubresourceStorage = SubresourceKind &
  Partial<SubresourceGetter & SubresourceUpdater & SubresourcePatcher & SubresourceCreater & SubresourceConnecter>;

/** The verbs a storage serves, sorted as discovery lists them. */
export function subresourceVerbs(storage: SubresourceStorage): string[] {
  // A connecter's methods as kube's installer lists them (POST, DELETE, GET, PATCH, PUT; HEAD and OPTIONS have no verb).
  if (storage.connect) return ['create', 'delete', 'get', 'patch', 'update'];
  const verbs: string[] = [];
  if (storage.create) verbs.push('create');
  if (storage.get) verbs.push('get');
  if (storage.patch) verbs.push('patch');
  if (storage.update) verbs.push('update');
  return verbs;
}
