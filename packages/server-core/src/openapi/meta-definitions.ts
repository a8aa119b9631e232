import type { JSONSchema } from '@kapi/registry';
import {
  DELETE_OPTIONS,
  FIELDS_V1,
  LIST_META,
  MANAGED_FIELDS_ENTRY,
  OBJECT_META,
  OWNER_REFERENCE,
  PATCH,
  PRECONDITIONS,
  RAW_EXTENSION,
  ref,
  SCALE,
  SCALE_SPEC,
  SCALE_STATUS,
  STATUS,
  STATUS_CAUSE,
  STATUS_DETAILS,
  TIME,
  WATCH_EVENT,
} from './names.ts';

/**
 * The metav1, runtime and autoscaling/v1 definitions every group-version's document may refer to, as OpenAPI v3
 * schemas (references to `#/components/schemas/…`), with kube's descriptions (k8s.io/apimachinery's SwaggerDoc),
 * shortened where kube's run to several paragraphs.
 */

const CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';

/** TypeMeta's apiVersion as kube describes it. */
export const API_VERSION_PROPERTY: JSONSchema = {
  description: `APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: ${CONVENTIONS}#resources`,
  type: 'string',
};

/** TypeMeta's kind as kube describes it. */
export const KIND_PROPERTY: JSONSchema = {
  description: `Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: ${CONVENTIONS}#types-kinds`,
  type: 'string',
};

export const OBJECT_METADATA_DESCRIPTION = `Standard object's metadata. More info: ${CONVENTIONS}#metadata`;
export const LIST_METADATA_DESCRIPTION = `Standard list metadata. More info: ${CONVENTIONS}#types-kinds`;

/** A reference with a description: v3 ignores siblings of $ref, so kube wraps the reference in allOf. */
export function describedRef(name: string, description: string): JSONSchema {
  return { allOf: [ref(name)], description };
}

const str = (description: string): JSONSchema => ({ description, type: 'string' });
const int64 = (description: string): JSONSchema => ({ description, type: 'integer', format: 'int64' });
const int32 = (description: string): JSONSchema => ({ description, type: 'integer', format: 'int32' });
const bool = (description: string): JSONSchema => ({ description, type: 'boolean' });
const stringMap = (description: string): JSONSchema => ({ description, type: 'object', additionalProperties: { type: 'string' } });
const gvk = (group: string, version: string, kind: string) => ({ 'x-kubernetes-group-version-kind': [{ group, version, kind }] });

const objectMeta: JSONSchema = {
  description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
  type: 'object',
  properties: {
    annotations: stringMap(
      'Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations',
    ),
    creationTimestamp: describedRef(
      TIME,
      'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.',
    ),
    deletionGracePeriodSeconds: int64(
      'Number of seconds allowed for this object to gracefully terminate before it will be removed from the system. Only set when deletionTimestamp is also set. May only be shortened. Read-only.',
    ),
    deletionTimestamp: describedRef(
      TIME,
      'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted. This field is set by the server when a graceful deletion is requested by the user, and is not directly settable by a client. Read-only.',
    ),
    finalizers: {
      description:
        'Must be empty before the object is deleted from the registry. Each entry is an identifier for the responsible component that will remove the entry from the list. If the deletionTimestamp of the object is non-nil, entries in this list can only be removed. Finalizers may be processed and removed in any order.',
      type: 'array',
      items: { type: 'string', default: '' },
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    },
    generateName: str(
      'GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided. If this field is used, the name returned to the client will be different than the name passed. This value will also be combined with a unique suffix.',
    ),
    generation: int64('A sequence number representing a specific generation of the desired state. Populated by the system. Read-only.'),
    labels: stringMap(
      'Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels',
    ),
    managedFields: {
      description:
        "ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow. This is mostly for internal housekeeping, and users typically shouldn't need to set or understand this field.",
      type: 'array',
      items: { allOf: [ref(MANAGED_FIELDS_ENTRY)], default: {} },
      'x-kubernetes-list-type': 'atomic',
    },
    name: str(
      'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
    ),
    namespace: str(
      'Namespace defines the space within which each name must be unique. An empty namespace is equivalent to the "default" namespace, but "default" is the canonical representation. Not all objects are required to be scoped to a namespace - the value of this field for those objects will be empty. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces',
    ),
    ownerReferences: {
      description:
        'List of objects depended by this object. If ALL objects in the list have been deleted, this object will be garbage collected. If this object is managed by a controller, then an entry in this list will point to this controller, with the controller field set to true. There cannot be more than one managing controller.',
      type: 'array',
      items: { allOf: [ref(OWNER_REFERENCE)], default: {} },
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    },
    resourceVersion: str(
      `An opaque value that represents the internal version of this object that can be used by clients to determine when objects have changed. May be used for optimistic concurrency, change detection, and the watch operation on a resource or set of resources. Clients must treat these values as opaque and passed unmodified back to the server. Populated by the system. Read-only. More info: ${CONVENTIONS}#concurrency-control-and-consistency`,
    ),
    selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
    uid: str(
      'UID is the unique in time and space value for this object. It is typically generated by the server on successful creation of a resource and is not allowed to change on PUT operations. Populated by the system. Read-only. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids',
    ),
  },
};

const listMeta: JSONSchema = {
  description:
    'ListMeta describes metadata that synthetic resources must have, including lists and various status objects. A resource may have only one of {ObjectMeta, ListMeta}.',
  type: 'object',
  properties: {
    continue: str(
      'continue may be set if the user set a limit on the number of items returned, and indicates that the server has more data available. The value is opaque and may be used to issue another request to the endpoint that served this list to retrieve the next set of available objects.',
    ),
    remainingItemCount: int64(
      'remainingItemCount is the number of subsequent items in the list which are not included in this list response. If the list request contained label or field selectors, then the number of remaining items is unknown and the field will be left unset and omitted during serialization.',
    ),
    resourceVersion: str(
      `String that identifies the server's internal version of this object that can be used by clients to determine when objects have changed. Value must be treated as opaque by clients and passed unmodified back to the server. Populated by the system. Read-only. More info: ${CONVENTIONS}#concurrency-control-and-consistency`,
    ),
    selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
  },
};

const managedFieldsEntry: JSONSchema = {
  description: 'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
  type: 'object',
  properties: {
    apiVersion: str('APIVersion defines the version of this resource that this field set applies to.'),
    fieldsType: str(
      'FieldsType is the discriminator for the different fields format and version. There is currently only 1 possible value: "FieldsV1"',
    ),
    fieldsV1: describedRef(FIELDS_V1, 'FieldsV1 holds the first JSON version format as described in the "FieldsV1" type.'),
    manager: str('Manager is an identifier of the workflow managing these fields.'),
    operation: str(
      "Operation is the type of operation which lead to this ManagedFieldsEntry being created. The only valid values for this field are 'Apply' and 'Update'.",
    ),
    subresource: str(
      'Subresource is the name of the subresource used to update that object, or empty string if the object was updated through the main resource.',
    ),
    time: describedRef(
      TIME,
      'Time is the timestamp of when the ManagedFields entry was added. The timestamp will also be updated if a field is added, the manager changes any of the owned fields value or removes a field.',
    ),
  },
};

const ownerReference: JSONSchema = {
  description:
    'OwnerReference contains enough information to let you identify an owning object. An owning object must be in the same namespace as the dependent, or be cluster-scoped, so there is no namespace field.',
  type: 'object',
  required: ['apiVersion', 'kind', 'name', 'uid'],
  properties: {
    apiVersion: { ...str('API version of the referent.'), default: '' },
    blockOwnerDeletion: bool(
      'If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed. Defaults to false.',
    ),
    controller: bool('If true, this reference points to the managing controller.'),
    kind: { ...str(`Kind of the referent. More info: ${CONVENTIONS}#types-kinds`), default: '' },
    name: {
      ...str('Name of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names'),
      default: '',
    },
    uid: {
      ...str('UID of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids'),
      default: '',
    },
  },
  'x-kubernetes-map-type': 'atomic',
};

const statusCause: JSONSchema = {
  description: 'StatusCause provides more information about an api.Status failure, including cases when multiple errors are encountered.',
  type: 'object',
  properties: {
    field: str(
      'The field of the resource that has caused this error, as named by its JSON serialization. May include dot and postfix notation for nested attributes. Arrays are zero-indexed.',
    ),
    message: str('A human-readable description of the cause of the error. This field may be presented as-is to a reader.'),
    reason: str('A machine-readable description of the cause of the error. If this value is empty there is no information available.'),
  },
};

const statusDetails: JSONSchema = {
  description:
    'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response. The Reason field of a Status object defines what attributes will be set.',
  type: 'object',
  properties: {
    causes: {
      description:
        'The Causes array includes more details associated with the StatusReason failure. Not all StatusReasons may provide detailed causes.',
      type: 'array',
      items: { allOf: [ref(STATUS_CAUSE)], default: {} },
      'x-kubernetes-list-type': 'atomic',
    },
    group: str('The group attribute of the resource associated with the status StatusReason.'),
    kind: str(`The kind attribute of the resource associated with the status StatusReason. More info: ${CONVENTIONS}#types-kinds`),
    name: str(
      'The name attribute of the resource associated with the status StatusReason (when there is a single name which can be described).',
    ),
    retryAfterSeconds: int32('If specified, the time in seconds before the operation should be retried.'),
    uid: str('UID of the resource. (when there is a single resource which can be described).'),
  },
};

const status: JSONSchema = {
  description: "Status is a return value for calls that don't return other objects.",
  type: 'object',
  properties: {
    apiVersion: API_VERSION_PROPERTY,
    code: int32('Suggested HTTP return code for this status, 0 if not set.'),
    details: {
      ...describedRef(
        STATUS_DETAILS,
        'Extended data associated with the reason.  Each reason may define its own extended details. This field is optional and the data returned is not guaranteed to conform to any schema except that defined by the reason type.',
      ),
      'x-kubernetes-list-type': 'atomic',
    },
    kind: KIND_PROPERTY,
    message: str('A human-readable description of the status of this operation.'),
    metadata: { ...describedRef(LIST_META, LIST_METADATA_DESCRIPTION), default: {} },
    reason: str(
      'A machine-readable description of why this operation is in the "Failure" status. If this value is empty there is no information available. A Reason clarifies an HTTP status code but does not override it.',
    ),
    status: str(`Status of the operation. One of: "Success" or "Failure". More info: ${CONVENTIONS}#spec-and-status`),
  },
  ...gvk('', 'v1', 'Status'),
};

const preconditions: JSONSchema = {
  description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
  type: 'object',
  properties: {
    resourceVersion: str('Specifies the target ResourceVersion'),
    uid: str('Specifies the target UID.'),
  },
};

const deleteOptions: JSONSchema = {
  description: 'DeleteOptions may be provided when deleting an API object.',
  type: 'object',
  properties: {
    apiVersion: API_VERSION_PROPERTY,
    dryRun: {
      description:
        'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed',
      type: 'array',
      items: { type: 'string', default: '' },
      'x-kubernetes-list-type': 'atomic',
    },
    gracePeriodSeconds: int64(
      'The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately. If this value is nil, the default grace period for the specified type will be used. Defaults to a per object value if not specified. zero means delete immediately.',
    ),
    kind: KIND_PROPERTY,
    orphanDependents: bool(
      'Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned. If true/false, the "orphan" finalizer will be added to/removed from the object\'s finalizers list. Either this field or PropagationPolicy may be set, but not both.',
    ),
    preconditions: describedRef(
      PRECONDITIONS,
      'Must be fulfilled before a deletion is carried out. If not possible, a 409 Conflict status will be returned.',
    ),
    propagationPolicy: str(
      "Whether and how garbage collection will be performed. Either this field or OrphanDependents may be set, but not both. The default policy is decided by the existing finalizer set in the metadata.finalizers and the resource-specific default policy. Acceptable values are: 'Orphan' - orphan the dependents; 'Background' - allow the garbage collector to delete the dependents in the background; 'Foreground' - a cascading policy that deletes all dependents in the foreground.",
    ),
  },
  ...gvk('', 'v1', 'DeleteOptions'),
};

const watchEvent: JSONSchema = {
  description: 'Event represents a single event to a watched resource.',
  type: 'object',
  required: ['type', 'object'],
  properties: {
    object: describedRef(
      RAW_EXTENSION,
      'Object is:\n * If Type is Added or Modified: the new state of the object.\n * If Type is Deleted: the state of the object immediately before deletion.\n * If Type is Error: *Status is recommended; other types may make sense\n   depending on context.',
    ),
    type: { type: 'string', default: '' },
  },
  ...gvk('', 'v1', 'WatchEvent'),
};

const scale: JSONSchema = {
  description: 'Scale represents a scaling request for a resource.',
  type: 'object',
  properties: {
    apiVersion: API_VERSION_PROPERTY,
    kind: KIND_PROPERTY,
    metadata: { ...describedRef(OBJECT_META, OBJECT_METADATA_DESCRIPTION), default: {} },
    spec: {
      ...describedRef(SCALE_SPEC, `spec defines the behavior of the scale. More info: ${CONVENTIONS}#spec-and-status.`),
      default: {},
    },
    status: {
      ...describedRef(SCALE_STATUS, `status is the current status of the scale. More info: ${CONVENTIONS}#spec-and-status. Read-only.`),
      default: {},
    },
  },
  ...gvk('autoscaling', 'v1', 'Scale'),
};

/** Every shared definition by name. */
export const META_DEFINITIONS: Readonly<Record<string, JSONSchema>> = {
  [DELETE_OPTIONS]: deleteOptions,
  [FIELDS_V1]: {
    description:
      "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.\n\nEach key is either a '.' representing the field itself, and will always map to an empty set, or a string representing a sub-field or item.",
    type: 'object',
  },
  [LIST_META]: listMeta,
  [MANAGED_FIELDS_ENTRY]: managedFieldsEntry,
  [OBJECT_META]: objectMeta,
  [OWNER_REFERENCE]: ownerReference,
  [PATCH]: {
    description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
    type: 'object',
  },
  [PRECONDITIONS]: preconditions,
  [RAW_EXTENSION]: {
    description:
      'RawExtension is used to hold extensions in external versions. To use this, make a field which has RawExtension as its type in your external version struct, and Object in your internal struct.',
    type: 'object',
  },
  [SCALE]: scale,
  [SCALE_SPEC]: {
    description: 'ScaleSpec describes the attributes of a scale subresource.',
    type: 'object',
    properties: { replicas: int32('replicas is the desired number of instances for the scaled object.') },
  },
  [SCALE_STATUS]: {
    description: 'ScaleStatus represents the current status of a scale subresource.',
    type: 'object',
    required: ['replicas'],
    properties: {
      replicas: { ...int32('replicas is the actual number of observed instances of the scaled object.'), default: 0 },
      selector: str(
        'selector is the label query over pods that should match the replicas count. This is same as the label selector but in the string format to avoid introspection by clients. The string will be in the same format as the query-param syntax. More info about label selectors: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels#label-selectors',
      ),
    },
  },
  [STATUS]: status,
  [STATUS_CAUSE]: statusCause,
  [STATUS_DETAILS]: statusDetails,
  [TIME]: {
    description:
      'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are provided for many of the factory methods that the time package offers.',
    type: 'string',
    format: 'date-time',
  },
  [WATCH_EVENT]: watchEvent,
};
