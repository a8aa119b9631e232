import {
  checkJsonDepth,
  type KubeObject,
  newBadRequest,
  newUnsupportedMediaTypeMessage,
  StatusError,
  stringifyJson,
} from '@kapi/apimachinery';
import type protobuf from 'protobufjs';
import { kubeType } from './schema.ts';

/** The media type of Kubernetes' protobuf encoding, which client-go's typed clients (and so kubectl create) send. */
export const KUBERNETES_PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** The 4 bytes (`k8s\0`) every Kubernetes protobuf body starts with, before its runtime.Unknown envelope. */
const MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const asObject = (v: unknown): Json => (isObject(v) ? v : {});

// ---------------------------------------------------------------------------------------------------------------
// Wire message (protobufjs toObject, with field presence) -> the object Go's encoding/json would write.
//
// Go's JSON drops `omitempty` fields at their zero value ("" / 0 / false / empty map or slice / nil pointer) but
// always writes struct-valued fields (`"spec":{}`) and fields without omitempty. A pointer field (*bool, *int64,
// *string, *struct) is written whenever it is set, even to its zero value; gogo-protobuf writes such a field only when
// it is non-nil, so presence on the wire is the same test. One deliberate difference: a zero metav1.Time / MicroTime
// (gogo writes it as an empty message) is JSON `null` in Go; it is left out here, which every reader treats alike.
// ---------------------------------------------------------------------------------------------------------------

/** Sets a string field that is `omitempty` in Go: only when non-empty. */
function putString(out: Json, key: string, v: unknown): void {
  if (typeof v === 'string' && v !== '') out[key] = v;
}
/** Sets a number field that is `omitempty` in Go: only when non-zero. */
function putNumber(out: Json, key: string, v: unknown): void {
  if (typeof v === 'number' && v !== 0) out[key] = v;
}
/** Sets a pointer field (present on the wire means set, zero value included). */
function putPresent(out: Json, key: string, v: unknown): void {
  if (v !== undefined && v !== null) out[key] = v;
}
/** Sets a map field that is `omitempty`: only when it has entries. */
function putMap(out: Json, key: string, v: unknown): void {
  if (isObject(v) && Object.keys(v).length > 0) out[key] = { ...v };
}
/** Sets a slice field that is `omitempty`: only when non-empty. */
function putList(out: Json, key: string, v: unknown, each: (item: Json) => unknown = (x) => x): void {
  if (Array.isArray(v) && v.length > 0) out[key] = v.map((item) => each(item as Json));
}

/** metav1.Time (RFC 3339, whole seconds, UTC) or MicroTime (6 fractional digits); undefined for the zero time. */
function formatTime(v: unknown, micro: boolean): string | undefined {
  if (!isObject(v) || (v.seconds === undefined && v.nanos === undefined)) return undefined;
  const seconds = Number(v.seconds ?? 0);
  const nanos = Number(v.nanos ?? 0);
  if (!Number.isFinite(seconds) || !Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) {
    throw newBadRequest(`invalid timestamp {seconds: ${String(v.seconds)}, nanos: ${String(v.nanos)}}`);
  }
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) throw newBadRequest(`timestamp out of range: ${seconds} seconds`);
  const base = date.toISOString().slice(0, -5); // drop ".mmmZ"
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}
function putTime(out: Json, key: string, v: unknown, micro = false): void {
  const t = formatTime(v, micro);
  if (t !== undefined) out[key] = t;
}

function ownerReferenceToJson(w: Json): Json {
  // apiVersion, kind, name and uid have no omitempty in Go.
  const out: Json = { apiVersion: w.apiVersion ?? '', kind: w.kind ?? '', name: w.name ?? '', uid: w.uid ?? '' };
  putPresent(out, 'controller', w.controller);
  putPresent(out, 'blockOwnerDeletion', w.blockOwnerDeletion);
  return out;
}

function managedFieldsEntryToJson(w: Json): Json {
  const out: Json = {};
  putString(out, 'manager', w.manager);
  putString(out, 'operation', w.operation);
  putString(out, 'apiVersion', w.apiVersion);
  putTime(out, 'time', w.time);
  putString(out, 'fieldsType', w.fieldsType);
  if (isObject(w.fieldsV1)) {
    // FieldsV1 is raw JSON on both encodings; an empty one is `{}` in Go.
    const raw = typeof w.fieldsV1.Raw === 'string' ? Buffer.from(w.fieldsV1.Raw, 'base64').toString('utf8') : '';
    try {
      out.fieldsV1 = raw === '' ? {} : JSON.parse(raw);
    } catch {
      throw newBadRequest('managedFields: fieldsV1 is not valid JSON');
    }
    // The only JSON inside a protobuf body: held to the JSON decoder's depth limit.
    checkJsonDepth(out.fieldsV1, 'managedFields: fieldsV1');
  }
  putString(out, 'subresource', w.subresource);
  return out;
}

function objectMetaToJson(v: unknown): Json {
  const w = asObject(v);
  const out: Json = {};
  putString(out, 'name', w.name);
  putString(out, 'generateName', w.generateName);
  putString(out, 'namespace', w.namespace);
  putString(out, 'selfLink', w.selfLink);
  putString(out, 'uid', w.uid);
  putString(out, 'resourceVersion', w.resourceVersion);
  putNumber(out, 'generation', w.generation);
  putTime(out, 'creationTimestamp', w.creationTimestamp);
  putTime(out, 'deletionTimestamp', w.deletionTimestamp);
  putPresent(out, 'deletionGracePeriodSeconds', w.deletionGracePeriodSeconds);
  putMap(out, 'labels', w.labels);
  putMap(out, 'annotations', w.annotations);
  putList(out, 'ownerReferences', w.ownerReferences, ownerReferenceToJson);
  putList(out, 'finalizers', w.finalizers);
  putList(out, 'managedFields', w.managedFields, managedFieldsEntryToJson);
  return out;
}

function objectReferenceToJson(v: unknown): Json {
  const w = asObject(v);
  const out: Json = {};
  for (const key of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) putString(out, key, w[key]);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// JSON object -> the plain object protobufjs' fromObject takes. JSON names equal the .proto names (keepCase), so most
// fields pass through (fromObject ignores keys it does not know and null values); only times, FieldsV1 and bytes differ.
// ---------------------------------------------------------------------------------------------------------------

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function parseTime(v: unknown, field: string): Json | undefined {
  if (v === undefined || v === null) return undefined;
  const m = typeof v === 'string' ? RFC3339.exec(v) : null;
  if (!m) throw newBadRequest(`${field}: invalid RFC 3339 time ${JSON.stringify(v)}`);
  const zone = m[4] === 'Z' || m[4] === 'z' ? 'Z' : m[4];
  const ms = Date.parse(`${m[1]}T${m[2]}${zone}`);
  if (Number.isNaN(ms)) throw newBadRequest(`${field}: invalid RFC 3339 time ${JSON.stringify(v)}`);
  const nanos = m[3] ? Number(m[3].slice(1, 10).padEnd(9, '0')) : 0;
  return { seconds: Math.floor(ms / 1000), nanos };
}

function withTimes(o: Json, fields: readonly string[], path: string): Json {
  const out: Json = { ...o };
  for (const f of fields) out[f] = parseTime(o[f], `${path}.${f}`);
  return out;
}

function objectMetaFromJson(v: unknown): Json {
  const o = asObject(v);
  const out = withTimes(o, ['creationTimestamp', 'deletionTimestamp'], 'metadata');
  if (Array.isArray(o.managedFields)) {
    out.managedFields = o.managedFields.map((e, i) => {
      const entry = withTimes(asObject(e), ['time'], `metadata.managedFields[${i}]`);
      const fields = asObject(e).fieldsV1;
      entry.fieldsV1 =
        fields === undefined || fields === null ? undefined : { Raw: Buffer.from(stringifyJson(fields), 'utf8').toString('base64') };
      return entry;
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The kinds.
// ---------------------------------------------------------------------------------------------------------------

interface KindCodec {
  /** The message of schema.ts holding this kind. */
  readonly message: string;
  /** Wire object (without TypeMeta) -> JSON fields after apiVersion/kind. */
  toJson(w: Json): Json;
  /** JSON object -> wire object for fromObject. */
  fromJson(o: Json): Json;
}

const configMap: KindCodec = {
  message: 'ConfigMap',
  toJson(w) {
    const out: Json = { metadata: objectMetaToJson(w.metadata) };
    putPresent(out, 'immutable', w.immutable);
    putMap(out, 'data', w.data);
    putMap(out, 'binaryData', w.binaryData); // bytes arrive base64, as []byte is in JSON
    return out;
  },
  fromJson: (o) => ({ ...o, metadata: objectMetaFromJson(o.metadata) }),
};

const secret: KindCodec = {
  message: 'Secret',
  toJson(w) {
    const out: Json = { metadata: objectMetaToJson(w.metadata) };
    putPresent(out, 'immutable', w.immutable);
    putMap(out, 'data', w.data);
    putMap(out, 'stringData', w.stringData);
    putString(out, 'type', w.type);
    return out;
  },
  fromJson: (o) => ({ ...o, metadata: objectMetaFromJson(o.metadata) }),
};

const namespace: KindCodec = {
  message: 'Namespace',
  toJson(w) {
    const spec: Json = {};
    putList(spec, 'finalizers', asObject(w.spec).finalizers);
    const s = asObject(w.status);
    const status: Json = {};
    putString(status, 'phase', s.phase);
    putList(status, 'conditions', s.conditions, (c) => {
      // type and status have no omitempty in Go.
      const out: Json = { type: c.type ?? '', status: c.status ?? '' };
      putTime(out, 'lastTransitionTime', c.lastTransitionTime);
      putString(out, 'reason', c.reason);
      putString(out, 'message', c.message);
      return out;
    });
    return { metadata: objectMetaToJson(w.metadata), spec, status };
  },
  fromJson(o) {
    const status = asObject(o.status);
    const conditions = Array.isArray(status.conditions)
      ? status.conditions.map((c, i) => withTimes(asObject(c), ['lastTransitionTime'], `status.conditions[${i}]`))
      : undefined;
    return { ...o, metadata: objectMetaFromJson(o.metadata), status: { ...status, conditions } };
  },
};

const event: KindCodec = {
  message: 'Event',
  toJson(w) {
    const out: Json = { metadata: objectMetaToJson(w.metadata), involvedObject: objectReferenceToJson(w.involvedObject) };
    putString(out, 'reason', w.reason);
    putString(out, 'message', w.message);
    const source: Json = {};
    putString(source, 'component', asObject(w.source).component);
    putString(source, 'host', asObject(w.source).host);
    out.source = source;
    putTime(out, 'firstTimestamp', w.firstTimestamp);
    putTime(out, 'lastTimestamp', w.lastTimestamp);
    putNumber(out, 'count', w.count);
    putString(out, 'type', w.type);
    putTime(out, 'eventTime', w.eventTime, true);
    if (isObject(w.series)) {
      const series: Json = {};
      putNumber(series, 'count', w.series.count);
      putTime(series, 'lastObservedTime', w.series.lastObservedTime, true);
      out.series = series;
    }
    putString(out, 'action', w.action);
    if (isObject(w.related)) out.related = objectReferenceToJson(w.related);
    // reportingComponent and reportingInstance have no omitempty in Go.
    out.reportingComponent = w.reportingComponent ?? '';
    out.reportingInstance = w.reportingInstance ?? '';
    return out;
  },
  fromJson(o) {
    const out = withTimes(o, ['firstTimestamp', 'lastTimestamp', 'eventTime'], '');
    out.metadata = objectMetaFromJson(o.metadata);
    if (isObject(o.series)) out.series = withTimes(o.series, ['lastObservedTime'], 'series');
    return out;
  },
};

const serviceAccount: KindCodec = {
  message: 'ServiceAccount',
  toJson(w) {
    const out: Json = { metadata: objectMetaToJson(w.metadata) };
    putList(out, 'secrets', w.secrets, objectReferenceToJson);
    putList(out, 'imagePullSecrets', w.imagePullSecrets, (r) => {
      // LocalObjectReference.name has omitempty.
      const ref: Json = {};
      putString(ref, 'name', r.name);
      return ref;
    });
    putPresent(out, 'automountServiceAccountToken', w.automountServiceAccountToken);
    return out;
  },
  fromJson: (o) => ({ ...o, metadata: objectMetaFromJson(o.metadata) }),
};

/** A ResourceList (name → Quantity message) as JSON (name → the quantity's string); omitempty. */
function putQuantities(out: Json, key: string, v: unknown): void {
  if (!isObject(v) || Object.keys(v).length === 0) return;
  out[key] = Object.fromEntries(Object.entries(v).map(([k, q]) => [k, asObject(q).string ?? '']));
}
/** A ResourceList as the wire's map of Quantity messages. */
function quantitiesFromJson(v: unknown): Json | undefined {
  return isObject(v) ? Object.fromEntries(Object.entries(v).map(([k, q]) => [k, { string: String(q) }])) : undefined;
}

/** core/v1 ResourceQuota: hard and used are ResourceLists (Quantity messages on the wire, strings in JSON). */
const resourceQuota: KindCodec = {
  message: 'ResourceQuota',
  toJson(w) {
    const sp = asObject(w.spec);
    const spec: Json = {};
    putQuantities(spec, 'hard', sp.hard);
    putList(spec, 'scopes', sp.scopes);
    const sel = asObject(sp.scopeSelector);
    if (isObject(sp.scopeSelector)) {
      const selector: Json = {};
      putList(selector, 'matchExpressions', sel.matchExpressions, (r) => {
        // scopeName and operator have no omitempty in Go.
        const out: Json = { scopeName: r.scopeName ?? '', operator: r.operator ?? '' };
        putList(out, 'values', r.values);
        return out;
      });
      spec.scopeSelector = selector;
    }
    const st = asObject(w.status);
    const status: Json = {};
    putQuantities(status, 'hard', st.hard);
    putQuantities(status, 'used', st.used);
    return { metadata: objectMetaToJson(w.metadata), spec, status };
  },
  fromJson(o) {
    const spec = asObject(o.spec);
    const status = asObject(o.status);
    return {
      ...o,
      metadata: objectMetaFromJson(o.metadata),
      spec: { ...spec, hard: quantitiesFromJson(spec.hard) },
      status: { hard: quantitiesFromJson(status.hard), used: quantitiesFromJson(status.used) },
    };
  },
};

/** coordination.k8s.io/v1 Lease: every spec field is a pointer in Go, so present on the wire means set. */
const lease: KindCodec = {
  message: 'Lease',
  toJson(w) {
    const sp = asObject(w.spec);
    const spec: Json = {};
    putPresent(spec, 'holderIdentity', sp.holderIdentity);
    putPresent(spec, 'leaseDurationSeconds', sp.leaseDurationSeconds);
    putTime(spec, 'acquireTime', sp.acquireTime, true);
    putTime(spec, 'renewTime', sp.renewTime, true);
    putPresent(spec, 'leaseTransitions', sp.leaseTransitions);
    putPresent(spec, 'strategy', sp.strategy);
    putPresent(spec, 'preferredHolder', sp.preferredHolder);
    return { metadata: objectMetaToJson(w.metadata), spec };
  },
  fromJson(o) {
    const out: Json = { ...o, metadata: objectMetaFromJson(o.metadata) };
    if (isObject(o.spec)) out.spec = withTimes(o.spec, ['acquireTime', 'renewTime'], 'spec');
    return out;
  },
};

/** events.k8s.io/v1 Event: core's fields under their new names; regarding and deprecatedSource are structs (always written). */
const eventsV1Event: KindCodec = {
  message: 'EventsV1Event',
  toJson(w) {
    const out: Json = { metadata: objectMetaToJson(w.metadata) };
    putTime(out, 'eventTime', w.eventTime, true);
    if (isObject(w.series)) {
      // count and lastObservedTime have no omitempty in Go.
      const series: Json = { count: w.series.count ?? 0 };
      putTime(series, 'lastObservedTime', w.series.lastObservedTime, true);
      out.series = series;
    }
    putString(out, 'reportingController', w.reportingController);
    putString(out, 'reportingInstance', w.reportingInstance);
    putString(out, 'action', w.action);
    putString(out, 'reason', w.reason);
    out.regarding = objectReferenceToJson(w.regarding);
    if (isObject(w.related)) out.related = objectReferenceToJson(w.related);
    putString(out, 'note', w.note);
    putString(out, 'type', w.type);
    const source: Json = {};
    putString(source, 'component', asObject(w.deprecatedSource).component);
    putString(source, 'host', asObject(w.deprecatedSource).host);
    out.deprecatedSource = source;
    putTime(out, 'deprecatedFirstTimestamp', w.deprecatedFirstTimestamp);
    putTime(out, 'deprecatedLastTimestamp', w.deprecatedLastTimestamp);
    putNumber(out, 'deprecatedCount', w.deprecatedCount);
    return out;
  },
  fromJson(o) {
    const out = withTimes(o, ['eventTime', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp'], '');
    out.metadata = objectMetaFromJson(o.metadata);
    if (isObject(o.series)) out.series = withTimes(o.series, ['lastObservedTime'], 'series');
    return out;
  },
};

/** authentication/v1 TokenRequest (kubectl create token): what the client sends, and the answer with its token. */
const tokenRequest: KindCodec = {
  message: 'TokenRequest',
  toJson(w) {
    const sp = asObject(w.spec);
    // audiences, expirationSeconds and boundObjectRef have no omitempty in Go (nil is null); the pointers are left
    // out when unset here, which the server reads as unset alike.
    const spec: Json = { audiences: Array.isArray(sp.audiences) ? [...sp.audiences] : [] };
    putPresent(spec, 'expirationSeconds', sp.expirationSeconds);
    if (isObject(sp.boundObjectRef)) {
      const ref: Json = {};
      for (const key of ['kind', 'apiVersion', 'name', 'uid']) putString(ref, key, sp.boundObjectRef[key]);
      spec.boundObjectRef = ref;
    }
    const st = asObject(w.status);
    const status: Json = { token: st.token ?? '' };
    putTime(status, 'expirationTimestamp', st.expirationTimestamp);
    return { metadata: objectMetaToJson(w.metadata), spec, status };
  },
  fromJson(o) {
    return { ...o, metadata: objectMetaFromJson(o.metadata), status: withTimes(asObject(o.status), ['expirationTimestamp'], 'status') };
  },
};

const deleteOptions: KindCodec = {
  message: 'DeleteOptions',
  toJson(w) {
    const out: Json = {};
    putPresent(out, 'gracePeriodSeconds', w.gracePeriodSeconds);
    if (isObject(w.preconditions)) {
      const p: Json = {};
      putPresent(p, 'uid', w.preconditions.uid);
      putPresent(p, 'resourceVersion', w.preconditions.resourceVersion);
      out.preconditions = p;
    }
    putPresent(out, 'orphanDependents', w.orphanDependents);
    putPresent(out, 'propagationPolicy', w.propagationPolicy);
    putList(out, 'dryRun', w.dryRun);
    return out;
  },
  fromJson: (o) => ({ ...o }),
};

const scale: KindCodec = {
  message: 'Scale',
  toJson(w) {
    const spec: Json = {};
    putNumber(spec, 'replicas', asObject(w.spec).replicas);
    const s = asObject(w.status);
    const status: Json = { replicas: s.replicas ?? 0 }; // status.replicas has no omitempty in Go
    putString(status, 'selector', s.selector);
    return { metadata: objectMetaToJson(w.metadata), spec, status };
  },
  fromJson: (o) => ({ ...o, metadata: objectMetaFromJson(o.metadata) }),
};

// The review kinds kubectl auth sends (whoami, can-i). Their bodies carry no times besides metadata's.

/** meta/v1 LabelSelectorRequirement: key and operator have no omitempty in Go, values has. */
function labelSelectorRequirementToJson(r: Json): Json {
  const req: Json = { key: r.key ?? '', operator: r.operator ?? '' };
  putList(req, 'values', r.values);
  return req;
}

/** ResourceAttributes' fieldSelector / labelSelector: rawSelector and requirements, all omitempty. */
function selectorAttributesToJson(v: unknown): Json {
  const w = asObject(v);
  const out: Json = {};
  putString(out, 'rawSelector', w.rawSelector);
  putList(out, 'requirements', w.requirements, labelSelectorRequirementToJson);
  return out;
}

/** UserInfo.extra / SubjectAccessReviewSpec.extra: map<string, ExtraValue{items}> on the wire, map<string, []string> in JSON. */
function extraToJson(out: Json, v: unknown): void {
  if (isObject(v) && Object.keys(v).length > 0)
    out.extra = Object.fromEntries(Object.entries(v).map(([k, e]) => [k, asObject(e).items ?? []]));
}
function extraFromJson(v: unknown): Json | undefined {
  return isObject(v) ? Object.fromEntries(Object.entries(v).map(([k, items]) => [k, { items }])) : undefined;
}

/** authentication/v1 UserInfo: every field omitempty. */
function userInfoToJson(v: unknown): Json {
  const u = asObject(v);
  const userInfo: Json = {};
  putString(userInfo, 'username', u.username);
  putString(userInfo, 'uid', u.uid);
  putList(userInfo, 'groups', u.groups);
  extraToJson(userInfo, u.extra);
  return userInfo;
}

const selfSubjectReview: KindCodec = {
  message: 'SelfSubjectReview',
  toJson: (w) => ({ metadata: objectMetaToJson(w.metadata), status: { userInfo: userInfoToJson(asObject(w.status).userInfo) } }),
  fromJson(o) {
    const u = asObject(asObject(o.status).userInfo);
    return { ...o, metadata: objectMetaFromJson(o.metadata), status: { userInfo: { ...u, extra: extraFromJson(u.extra) } } };
  },
};

/**
 * TokenReview, the delegated-authentication API (client-go's delegating authenticator and webhook clients may send it
 * as protobuf). spec.token and every status field are omitempty; status.user is a struct, written even when empty.
 */
const tokenReview: KindCodec = {
  message: 'TokenReview',
  toJson(w) {
    const sp = asObject(w.spec);
    const spec: Json = {};
    putString(spec, 'token', sp.token);
    putList(spec, 'audiences', sp.audiences);
    const st = asObject(w.status);
    const status: Json = {};
    if (st.authenticated === true) status.authenticated = true;
    status.user = userInfoToJson(st.user);
    putList(status, 'audiences', st.audiences);
    putString(status, 'error', st.error);
    return { metadata: objectMetaToJson(w.metadata), spec, status };
  },
  fromJson(o) {
    const st = asObject(o.status);
    const u = asObject(st.user);
    return { ...o, metadata: objectMetaFromJson(o.metadata), status: { ...st, user: { ...u, extra: extraFromJson(u.extra) } } };
  },
};

/** The attributes SelfSubjectAccessReviewSpec and SubjectAccessReviewSpec share (fields 1 and 2), all omitempty. */
function accessReviewAttributesToJson(sp: Json): Json {
  const spec: Json = {};
  if (isObject(sp.resourceAttributes)) {
    const r = sp.resourceAttributes;
    const ra: Json = {};
    for (const key of ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name']) putString(ra, key, r[key]);
    if (isObject(r.fieldSelector)) ra.fieldSelector = selectorAttributesToJson(r.fieldSelector);
    if (isObject(r.labelSelector)) ra.labelSelector = selectorAttributesToJson(r.labelSelector);
    spec.resourceAttributes = ra;
  }
  if (isObject(sp.nonResourceAttributes)) {
    const nra: Json = {};
    putString(nra, 'path', sp.nonResourceAttributes.path);
    putString(nra, 'verb', sp.nonResourceAttributes.verb);
    spec.nonResourceAttributes = nra;
  }
  return spec;
}

function accessReviewStatusToJson(v: unknown): Json {
  const st = asObject(v);
  // allowed has no omitempty in Go.
  const status: Json = { allowed: st.allowed === true };
  if (st.denied === true) status.denied = true;
  putString(status, 'reason', st.reason);
  putString(status, 'evaluationError', st.evaluationError);
  return status;
}

const selfSubjectAccessReview: KindCodec = {
  message: 'SelfSubjectAccessReview',
  toJson: (w) => ({
    metadata: objectMetaToJson(w.metadata),
    spec: accessReviewAttributesToJson(asObject(w.spec)),
    status: accessReviewStatusToJson(w.status),
  }),
  fromJson: (o) => ({ ...o, metadata: objectMetaFromJson(o.metadata) }),
};

/**
 * SubjectAccessReview and LocalSubjectAccessReview (one wire shape): the delegated-authorization API, which client-go's
 * delegating authorizer and webhook clients may send as protobuf. user, groups, extra and uid are all omitempty.
 */
function subjectAccessReview(message: string): KindCodec {
  return {
    message,
    toJson(w) {
      const sp = asObject(w.spec);
      const spec = accessReviewAttributesToJson(sp);
      putString(spec, 'user', sp.user);
      putList(spec, 'groups', sp.groups);
      extraToJson(spec, sp.extra);
      putString(spec, 'uid', sp.uid);
      return { metadata: objectMetaToJson(w.metadata), spec, status: accessReviewStatusToJson(w.status) };
    },
    fromJson(o) {
      const sp = asObject(o.spec);
      return { ...o, metadata: objectMetaFromJson(o.metadata), spec: { ...sp, extra: extraFromJson(sp.extra) } };
    },
  };
}

const selfSubjectRulesReview: KindCodec = {
  message: 'SelfSubjectRulesReview',
  toJson(w) {
    const spec: Json = {};
    putString(spec, 'namespace', asObject(w.spec).namespace);
    const st = asObject(w.status);
    const rules = (v: unknown, each: (r: Json) => Json): Json[] => (Array.isArray(v) ? v.map((r) => each(asObject(r))) : []);
    // resourceRules, nonResourceRules and incomplete have no omitempty in Go; verbs neither.
    const status: Json = {
      resourceRules: rules(st.resourceRules, (r) => {
        const out: Json = { verbs: r.verbs ?? [] };
        putList(out, 'apiGroups', r.apiGroups);
        putList(out, 'resources', r.resources);
        putList(out, 'resourceNames', r.resourceNames);
        return out;
      }),
      nonResourceRules: rules(st.nonResourceRules, (r) => {
        const out: Json = { verbs: r.verbs ?? [] };
        putList(out, 'nonResourceURLs', r.nonResourceURLs);
        return out;
      }),
      incomplete: st.incomplete === true,
    };
    putString(status, 'evaluationError', st.evaluationError);
    return { metadata: objectMetaToJson(w.metadata), spec, status };
  },
  fromJson: (o) => ({ ...o, metadata: objectMetaFromJson(o.metadata) }),
};

// rbac/v1, by its Go JSON tags: a rule's verbs, Role/ClusterRole rules, a subject's kind and name and a roleRef's three
// fields have no omitempty; nil slices among them (on the wire: no element) are written as Go writes them, `null`.
// Every other field is omitempty; roleRef is a struct, so always written.

/** A slice field without omitempty: Go writes a nil slice as `null`. */
function listOrNull(v: unknown, each: (item: Json) => unknown = (x) => x): unknown[] | null {
  return Array.isArray(v) && v.length > 0 ? v.map((item) => each(item as Json)) : null;
}

function policyRuleToJson(r: Json): Json {
  const out: Json = { verbs: listOrNull(r.verbs) };
  for (const key of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs']) putList(out, key, r[key]);
  return out;
}

/** meta/v1 LabelSelector: matchLabels and matchExpressions, both omitempty. */
function labelSelectorToJson(s: Json): Json {
  const out: Json = {};
  putMap(out, 'matchLabels', s.matchLabels);
  putList(out, 'matchExpressions', s.matchExpressions, labelSelectorRequirementToJson);
  return out;
}

function roleToJson(w: Json): Json {
  return { metadata: objectMetaToJson(w.metadata), rules: listOrNull(w.rules, policyRuleToJson) };
}

function clusterRoleToJson(w: Json): Json {
  const out = roleToJson(w);
  if (isObject(w.aggregationRule)) {
    const agg: Json = {};
    putList(agg, 'clusterRoleSelectors', w.aggregationRule.clusterRoleSelectors, labelSelectorToJson);
    out.aggregationRule = agg;
  }
  return out;
}

function bindingToJson(w: Json): Json {
  const out: Json = { metadata: objectMetaToJson(w.metadata) };
  putList(out, 'subjects', w.subjects, (s) => {
    const subject: Json = { kind: s.kind ?? '' };
    putString(subject, 'apiGroup', s.apiGroup);
    subject.name = s.name ?? '';
    putString(subject, 'namespace', s.namespace);
    return subject;
  });
  const ref = asObject(w.roleRef);
  out.roleRef = { apiGroup: ref.apiGroup ?? '', kind: ref.kind ?? '', name: ref.name ?? '' };
  return out;
}

/** The rbac kinds carry no times besides metadata's. */
const withMeta = (o: Json): Json => ({ ...o, metadata: objectMetaFromJson(o.metadata) });

/** rbac.authorization.k8s.io/v1, which kubectl create role|clusterrole|rolebinding|clusterrolebinding and kubectl auth reconcile send. */
const RBAC_V1 = new Map<string, KindCodec>([
  ['Role', { message: 'Role', toJson: roleToJson, fromJson: withMeta }],
  ['ClusterRole', { message: 'ClusterRole', toJson: clusterRoleToJson, fromJson: withMeta }],
  ['RoleBinding', { message: 'RoleBinding', toJson: bindingToJson, fromJson: withMeta }],
  ['ClusterRoleBinding', { message: 'ClusterRoleBinding', toJson: bindingToJson, fromJson: withMeta }],
]);

const REVIEWS = new Map<string, KindCodec>([
  ['authentication.k8s.io/v1/SelfSubjectReview', selfSubjectReview],
  ['authentication.k8s.io/v1beta1/SelfSubjectReview', selfSubjectReview],
  ['authentication.k8s.io/v1alpha1/SelfSubjectReview', selfSubjectReview],
  ['authentication.k8s.io/v1/TokenRequest', tokenRequest],
  ['authentication.k8s.io/v1/TokenReview', tokenReview],
  ['authorization.k8s.io/v1/SelfSubjectAccessReview', selfSubjectAccessReview],
  ['authorization.k8s.io/v1/SelfSubjectRulesReview', selfSubjectRulesReview],
  ['authorization.k8s.io/v1/SubjectAccessReview', subjectAccessReview('SubjectAccessReview')],
  ['authorization.k8s.io/v1/LocalSubjectAccessReview', subjectAccessReview('LocalSubjectAccessReview')],
]);

const CORE_V1 = new Map<string, KindCodec>([
  ['ConfigMap', configMap],
  ['Secret', secret],
  ['Namespace', namespace],
  ['Event', event],
  ['ServiceAccount', serviceAccount],
  ['ResourceQuota', resourceQuota],
]);

function codecFor(apiVersion: string, kind: string): KindCodec | undefined {
  // metav1.DeleteOptions is registered in every group version (and meta.k8s.io/v1) with one wire shape.
  if (kind === 'DeleteOptions') return deleteOptions;
  if (apiVersion === 'v1') return CORE_V1.get(kind);
  if (apiVersion === 'autoscaling/v1' && kind === 'Scale') return scale;
  if (apiVersion === 'coordination.k8s.io/v1' && kind === 'Lease') return lease;
  if (apiVersion === 'events.k8s.io/v1' && kind === 'Event') return eventsV1Event;
  if (apiVersion === 'rbac.authorization.k8s.io/v1') return RBAC_V1.get(kind);
  return REVIEWS.get(`${apiVersion}/${kind}`);
}

/** The message (in schema.ts) of a kind the codec models, by apiVersion and kind; undefined for any other. */
export function kubernetesMessageOf(apiVersion: string, kind: string): string | undefined {
  return codecFor(apiVersion, kind)?.message;
}

/** Whether {@link decodeKubernetesProtobuf} / {@link encodeKubernetesProtobuf} handle this apiVersion and kind. */
export function supportsKubernetesProtobuf(apiVersion: string, kind: string): boolean {
  return codecFor(apiVersion, kind) !== undefined;
}

function unsupportedKind(apiVersion: string, kind: string): StatusError {
  return newUnsupportedMediaTypeMessage(
    `the protobuf encoding of kind "${kind}" in version "${apiVersion}" is not supported by this server; send it as application/json`,
  );
}

/**
 * Nesting: kube-apiserver's protobuf decoder recurses once per embedded message. The messages modelled here nest at
 * most five deep (Event → ObjectMeta → ManagedFieldsEntry → Time), so known fields cannot nest further; unknown
 * length-delimited fields are skipped by their length without being parsed; only unknown groups (deprecated, in no kube
 * type) recurse, and protobufjs refuses them beyond its recursion limit of 100 (protoc's default) with an error that
 * becomes a 400 below. The JSON inside (FieldsV1) gets the JSON decoder's 10,000-level limit.
 */
function decodeMessage(type: protobuf.Type, bytes: Uint8Array, what: string): Json {
  try {
    return type.toObject(type.decode(bytes), { longs: Number, bytes: String }) as Json;
  } catch (e) {
    throw newBadRequest(`invalid protobuf ${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Defaults for a TypeMeta the envelope leaves out (as the endpoint's group/version/kind does upstream). */
export interface KubernetesProtobufDefaults {
  apiVersion?: string;
  kind?: string;
}

/**
 * Decodes a Kubernetes protobuf body (`k8s\0` + runtime.Unknown{typeMeta, raw}) into the object its JSON encoding is:
 * `{apiVersion, kind, metadata, ...}` with `omitempty` fields dropped as Go drops them, bytes as base64, times as
 * RFC 3339 strings (zero times are left out rather than `null`). Kinds: v1 ConfigMap, Secret, Namespace, Event and
 * ServiceAccount, coordination.k8s.io/v1 Lease, events.k8s.io/v1 Event, authentication.k8s.io/v1 TokenRequest,
 * autoscaling/v1 Scale, rbac.authorization.k8s.io/v1 Role,
 * ClusterRole, RoleBinding and ClusterRoleBinding, DeleteOptions in any version (it has no metadata; the result carries
 * none), the review kinds of kubectl auth (authentication.k8s.io SelfSubjectReview, authorization.k8s.io/v1
 * SelfSubjectAccessReview and SelfSubjectRulesReview), the delegated-authentication API (authentication.k8s.io/v1
 * TokenReview) and the delegated-authorization API (authorization.k8s.io/v1 SubjectAccessReview and
 * LocalSubjectAccessReview). No list kinds: clients send single objects.
 * managedFields are decoded too. Fields outside the modelled subset are skipped, as protobuf skips unknown fields.
 *
 * @throws StatusError 400 for a body without the magic, malformed protobuf or a missing kind/apiVersion;
 *   415 for a kind this decoder does not model.
 */
export function decodeKubernetesProtobuf(bytes: Uint8Array, defaults: KubernetesProtobufDefaults = {}): KubeObject {
  if (bytes.length < MAGIC.length || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw newBadRequest('provided data does not appear to be a protobuf message, expected prefix "k8s\\x00"');
  }
  const unknown = decodeMessage(kubeType('Unknown'), bytes.subarray(MAGIC.length), 'envelope');
  const typeMeta = asObject(unknown.typeMeta);
  const apiVersion = (typeof typeMeta.apiVersion === 'string' && typeMeta.apiVersion) || defaults.apiVersion || '';
  const kind = (typeof typeMeta.kind === 'string' && typeMeta.kind) || defaults.kind || '';
  if (kind === '') throw newBadRequest("Object 'Kind' is missing in the protobuf body");
  if (apiVersion === '') throw newBadRequest("Object 'apiVersion' is missing in the protobuf body");
  const codec = codecFor(apiVersion, kind);
  if (!codec) throw unsupportedKind(apiVersion, kind);
  const raw = typeof unknown.raw === 'string' ? Buffer.from(unknown.raw, 'base64') : new Uint8Array(0);
  const wire = decodeMessage(kubeType(codec.message), raw, kind);
  try {
    return { apiVersion, kind, ...codec.toJson(wire) } as KubeObject;
  } catch (e) {
    if (e instanceof StatusError) throw e;
    throw newBadRequest(`invalid protobuf ${kind}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Encodes an object of a kind {@link decodeKubernetesProtobuf} handles into Kubernetes' protobuf wire format
 * (`k8s\0` + runtime.Unknown with empty contentEncoding/contentType, as Kubernetes writes it).
 *
 * @throws StatusError 415 for a kind not modelled, 400 for a field that cannot be encoded (e.g. a malformed time).
 */
export function encodeKubernetesProtobuf(obj: KubeObject | (Json & { apiVersion?: string; kind?: string })): Uint8Array {
  const apiVersion = obj.apiVersion ?? '';
  const kind = obj.kind ?? '';
  const codec = codecFor(apiVersion, kind);
  if (!codec) throw unsupportedKind(apiVersion, kind);
  const type = kubeType(codec.message);
  let raw: Uint8Array;
  try {
    raw = type.encode(type.fromObject(codec.fromJson(obj as Json))).finish();
  } catch (e) {
    if (e instanceof StatusError) throw e;
    throw newBadRequest(`cannot encode ${kind} as protobuf: ${e instanceof Error ? e.message : String(e)}`);
  }
  const envelope = kubeType('Unknown');
  const body = envelope.encode(envelope.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' })).finish();
  const out = new Uint8Array(MAGIC.length + body.length);
  out.set(MAGIC, 0);
  out.set(body, MAGIC.length);
  return out;
}
