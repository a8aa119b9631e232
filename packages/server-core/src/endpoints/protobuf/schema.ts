import protobuf from 'protobufjs';

/**
 * The subset of Kubernetes' protobuf schema kapi reads and writes, with the field numbers of the upstream .proto files:
 * - k8s.io/apimachinery/pkg/runtime/generated.proto (TypeMeta, Unknown: the envelope after the `k8s\0` magic),
 * - k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto (ObjectMeta and friends, Time, MicroTime, DeleteOptions),
 * - k8s.io/api/core/v1/generated.proto (ConfigMap, Secret, Namespace, Event, ServiceAccount, ResourceQuota: kubectl
 *   create quota sends it so; resource.Quantity is its string),
 * - k8s.io/api/autoscaling/v1/generated.proto (Scale),
 * - k8s.io/api/coordination/v1/generated.proto (Lease: leader election through client-go's typed clients),
 * - k8s.io/api/events/v1/generated.proto (Event, here EventsV1Event; EventSeries is core's, with the same numbers),
 * - k8s.io/api/authentication/v1/generated.proto (SelfSubjectReview, v1beta1 and v1alpha1 have the same numbers;
 *   TokenRequest; TokenReview: the delegated-authentication API),
 * - k8s.io/api/authorization/v1/generated.proto (SelfSubjectAccessReview, SelfSubjectRulesReview, SubjectAccessReview,
 *   LocalSubjectAccessReview),
 * - k8s.io/api/rbac/v1/generated.proto (Role, ClusterRole, RoleBinding, ClusterRoleBinding and their PolicyRule, Subject,
 *   RoleRef, AggregationRule; meta/v1 LabelSelector: kubectl create role … and kubectl auth reconcile send them so).
 *
 * Message names are unqualified in one package (the wire format carries numbers, not names). Fields the upstream
 * schema retired (ObjectMeta.clusterName = 15, ManagedFieldsEntry.fields = 5, EventSeries.state = 3) are left out, so
 * a decoder skips them like any unknown field. Upstream is proto2 (`optional`), which protobufjs decodes with field
 * presence: a decoded message owns a property only for fields that were on the wire.
 */
const KUBERNETES_PROTO = `
syntax = "proto2";
package kapi.k8s;

// runtime
message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }
message Unknown { optional TypeMeta typeMeta = 1; optional bytes raw = 2; optional string contentEncoding = 3; optional string contentType = 4; }

// meta/v1
message Time { optional int64 seconds = 1; optional int32 nanos = 2; }
message MicroTime { optional int64 seconds = 1; optional int32 nanos = 2; }
message FieldsV1 { optional bytes Raw = 1; }
message ManagedFieldsEntry {
  optional string manager = 1; optional string operation = 2; optional string apiVersion = 3; optional Time time = 4;
  optional string fieldsType = 6; optional FieldsV1 fieldsV1 = 7; optional string subresource = 8;
}
message OwnerReference {
  optional string kind = 1; optional string name = 3; optional string uid = 4; optional string apiVersion = 5;
  optional bool controller = 6; optional bool blockOwnerDeletion = 7;
}
message ObjectMeta {
  optional string name = 1; optional string generateName = 2; optional string namespace = 3; optional string selfLink = 4;
  optional string uid = 5; optional string resourceVersion = 6; optional int64 generation = 7; optional Time creationTimestamp = 8;
  optional Time deletionTimestamp = 9; optional int64 deletionGracePeriodSeconds = 10; map<string, string> labels = 11;
  map<string, string> annotations = 12; repeated OwnerReference ownerReferences = 13; repeated string finalizers = 14;
  repeated ManagedFieldsEntry managedFields = 17;
}
message Preconditions { optional string uid = 1; optional string resourceVersion = 2; }
message DeleteOptions {
  optional int64 gracePeriodSeconds = 1; optional Preconditions preconditions = 2; optional bool orphanDependents = 3;
  optional string propagationPolicy = 4; repeated string dryRun = 5;
}

// core/v1
message ConfigMap { optional ObjectMeta metadata = 1; map<string, string> data = 2; map<string, bytes> binaryData = 3; optional bool immutable = 4; }
message Secret {
  optional ObjectMeta metadata = 1; map<string, bytes> data = 2; optional string type = 3; map<string, string> stringData = 4;
  optional bool immutable = 5;
}
message NamespaceSpec { repeated string finalizers = 1; }
message NamespaceCondition {
  optional string type = 1; optional string status = 2; optional Time lastTransitionTime = 4; optional string reason = 5;
  optional string message = 6;
}
message NamespaceStatus { optional string phase = 1; repeated NamespaceCondition conditions = 2; }
message Namespace { optional ObjectMeta metadata = 1; optional NamespaceSpec spec = 2; optional NamespaceStatus status = 3; }
message ObjectReference {
  optional string kind = 1; optional string namespace = 2; optional string name = 3; optional string uid = 4;
  optional string apiVersion = 5; optional string resourceVersion = 6; optional string fieldPath = 7;
}
message EventSource { optional string component = 1; optional string host = 2; }
message EventSeries { optional int32 count = 1; optional MicroTime lastObservedTime = 2; }
message Event {
  optional ObjectMeta metadata = 1; optional ObjectReference involvedObject = 2; optional string reason = 3; optional string message = 4;
  optional EventSource source = 5; optional Time firstTimestamp = 6; optional Time lastTimestamp = 7; optional int32 count = 8;
  optional string type = 9; optional MicroTime eventTime = 10; optional EventSeries series = 11; optional string action = 12;
  optional ObjectReference related = 13; optional string reportingComponent = 14; optional string reportingInstance = 15;
}
message LocalObjectReference { optional string name = 1; }
message ServiceAccount {
  optional ObjectMeta metadata = 1; repeated ObjectReference secrets = 2; repeated LocalObjectReference imagePullSecrets = 3;
  optional bool automountServiceAccountToken = 4;
}
message LeaseSpec {
  optional string holderIdentity = 1; optional int32 leaseDurationSeconds = 2; optional MicroTime acquireTime = 3;
  optional MicroTime renewTime = 4; optional int32 leaseTransitions = 5; optional string strategy = 6; optional string preferredHolder = 7;
}
message Lease { optional ObjectMeta metadata = 1; optional LeaseSpec spec = 2; }
message Quantity { optional string string = 1; }
message ScopedResourceSelectorRequirement { optional string scopeName = 1; optional string operator = 2; repeated string values = 3; }
message ScopeSelector { repeated ScopedResourceSelectorRequirement matchExpressions = 1; }
message ResourceQuotaSpec { map<string, Quantity> hard = 1; repeated string scopes = 2; optional ScopeSelector scopeSelector = 3; }
message ResourceQuotaStatus { map<string, Quantity> hard = 1; map<string, Quantity> used = 2; }
message ResourceQuota { optional ObjectMeta metadata = 1; optional ResourceQuotaSpec spec = 2; optional ResourceQuotaStatus status = 3; }
message EventsV1Event {
  optional ObjectMeta metadata = 1; optional MicroTime eventTime = 2; optional EventSeries series = 3; optional string reportingController = 4;
  optional string reportingInstance = 5; optional string action = 6; optional string reason = 7; optional ObjectReference regarding = 8;
  optional ObjectReference related = 9; optional string note = 10; optional string type = 11; optional EventSource deprecatedSource = 12;
  optional Time deprecatedFirstTimestamp = 13; optional Time deprecatedLastTimestamp = 14; optional int32 deprecatedCount = 15;
}

// autoscaling/v1
message ScaleSpec { optional int32 replicas = 1; }
message ScaleStatus { optional int32 replicas = 1; optional string selector = 2; }
message Scale { optional ObjectMeta metadata = 1; optional ScaleSpec spec = 2; optional ScaleStatus status = 3; }

// authentication/v1
message ExtraValue { repeated string items = 1; }
message UserInfo { optional string username = 1; optional string uid = 2; repeated string groups = 3; map<string, ExtraValue> extra = 4; }
message SelfSubjectReviewStatus { optional UserInfo userInfo = 1; }
message SelfSubjectReview { optional ObjectMeta metadata = 1; optional SelfSubjectReviewStatus status = 2; }
message TokenReviewSpec { optional string token = 1; repeated string audiences = 2; }
message TokenReviewStatus { optional bool authenticated = 1; optional UserInfo user = 2; optional string error = 3; repeated string audiences = 4; }
message TokenReview { optional ObjectMeta metadata = 1; optional TokenReviewSpec spec = 2; optional TokenReviewStatus status = 3; }
message BoundObjectReference { optional string kind = 1; optional string apiVersion = 2; optional string name = 3; optional string uid = 4; }
message TokenRequestSpec { repeated string audiences = 1; optional BoundObjectReference boundObjectRef = 3; optional int64 expirationSeconds = 4; }
message TokenRequestStatus { optional string token = 1; optional Time expirationTimestamp = 2; }
message TokenRequest { optional ObjectMeta metadata = 1; optional TokenRequestSpec spec = 2; optional TokenRequestStatus status = 3; }

// authorization/v1
message FieldSelectorRequirement { optional string key = 1; optional string operator = 2; repeated string values = 3; }
message FieldSelectorAttributes { optional string rawSelector = 1; repeated FieldSelectorRequirement requirements = 2; }
message LabelSelectorRequirement { optional string key = 1; optional string operator = 2; repeated string values = 3; }
message LabelSelectorAttributes { optional string rawSelector = 1; repeated LabelSelectorRequirement requirements = 2; }
message ResourceAttributes {
  optional string namespace = 1; optional string verb = 2; optional string group = 3; optional string version = 4;
  optional string resource = 5; optional string subresource = 6; optional string name = 7;
  optional FieldSelectorAttributes fieldSelector = 8; optional LabelSelectorAttributes labelSelector = 9;
}
message NonResourceAttributes { optional string path = 1; optional string verb = 2; }
message SelfSubjectAccessReviewSpec { optional ResourceAttributes resourceAttributes = 1; optional NonResourceAttributes nonResourceAttributes = 2; }
message SubjectAccessReviewStatus { optional bool allowed = 1; optional string reason = 2; optional string evaluationError = 3; optional bool denied = 4; }
message SelfSubjectAccessReview {
  optional ObjectMeta metadata = 1; optional SelfSubjectAccessReviewSpec spec = 2; optional SubjectAccessReviewStatus status = 3;
}
message ResourceRule { repeated string verbs = 1; repeated string apiGroups = 2; repeated string resources = 3; repeated string resourceNames = 4; }
message NonResourceRule { repeated string verbs = 1; repeated string nonResourceURLs = 2; }
message SubjectRulesReviewStatus {
  repeated ResourceRule resourceRules = 1; repeated NonResourceRule nonResourceRules = 2; optional bool incomplete = 3;
  optional string evaluationError = 4;
}
message SelfSubjectRulesReviewSpec { optional string namespace = 1; }
message SelfSubjectRulesReview {
  optional ObjectMeta metadata = 1; optional SelfSubjectRulesReviewSpec spec = 2; optional SubjectRulesReviewStatus status = 3;
}
message SubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1; optional NonResourceAttributes nonResourceAttributes = 2; optional string user = 3;
  repeated string groups = 4; map<string, ExtraValue> extra = 5; optional string uid = 6;
}
message SubjectAccessReview {
  optional ObjectMeta metadata = 1; optional SubjectAccessReviewSpec spec = 2; optional SubjectAccessReviewStatus status = 3;
}
message LocalSubjectAccessReview {
  optional ObjectMeta metadata = 1; optional SubjectAccessReviewSpec spec = 2; optional SubjectAccessReviewStatus status = 3;
}

// meta/v1 LabelSelector (its LabelSelectorRequirement is the one above: authorization/v1 embeds meta/v1's)
message LabelSelector { map<string, string> matchLabels = 1; repeated LabelSelectorRequirement matchExpressions = 2; }

// rbac/v1
message PolicyRule {
  repeated string verbs = 1; repeated string apiGroups = 2; repeated string resources = 3; repeated string resourceNames = 4;
  repeated string nonResourceURLs = 5;
}
message AggregationRule { repeated LabelSelector clusterRoleSelectors = 1; }
message Role { optional ObjectMeta metadata = 1; repeated PolicyRule rules = 2; }
message ClusterRole { optional ObjectMeta metadata = 1; repeated PolicyRule rules = 2; optional AggregationRule aggregationRule = 3; }
message Subject { optional string kind = 1; optional string apiGroup = 2; optional string name = 3; optional string namespace = 4; }
message RoleRef { optional string apiGroup = 1; optional string kind = 2; optional string name = 3; }
message RoleBinding { optional ObjectMeta metadata = 1; repeated Subject subjects = 2; optional RoleRef roleRef = 3; }
message ClusterRoleBinding { optional ObjectMeta metadata = 1; repeated Subject subjects = 2; optional RoleRef roleRef = 3; }
`;

const root = protobuf.parse(KUBERNETES_PROTO, { keepCase: true }).root;
root.resolveAll();

/**
 * Messages whose JSON form is no object of their fields: times are RFC 3339 strings, FieldsV1 is raw JSON (its keys are
 * field paths, not fields), an ExtraValue is a list of strings.
 */
export const NOT_JSON_OBJECTS: ReadonlySet<string> = new Set(['Time', 'MicroTime', 'FieldsV1', 'ExtraValue']);

/** A message type of the subset above, by its unqualified name (e.g. `ConfigMap`, `Unknown`). */
export function kubeType(name: string): protobuf.Type {
  return root.lookupType(`kapi.k8s.${name}`);
}
