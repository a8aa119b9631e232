/** apiVersion and kind, as every serialized object carries them. */
export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** metav1.ObjectMeta. Timestamps are RFC 3339 strings, as on the wire. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  selfLink?: string;
}

/** metav1.ListMeta. */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

/** Any Kubernetes object: plain JSON with TypeMeta and ObjectMeta. */
export interface KubeObject extends TypeMeta {
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ObjectList<T extends KubeObject = KubeObject> extends TypeMeta {
  metadata: ListMeta;
  items: T[];
}

/** metav1.StatusCause. */
export interface StatusCause {
  /** The cause type (metav1.CauseType, e.g. FieldValueInvalid); Go's field is Type, its JSON key is "reason". */
  reason?: string;
  message?: string;
  field?: string;
}

/** metav1.StatusDetails. `kind` holds the resource (e.g. "widgets"), as kube-apiserver fills it. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** metav1.Status, the body of every error response. */
export interface Status extends TypeMeta {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: ListMeta;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** metav1.WatchEvent: ERROR events carry a Status, every other type an object. */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T }
  | { type: 'ERROR'; object: Status };

/** Annotation on the BOOKMARK that ends a watch's initial events (sendInitialEvents). */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';
