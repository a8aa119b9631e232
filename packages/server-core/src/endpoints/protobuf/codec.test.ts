import { type KubeObject, type ObjectMeta, StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { decodeKubernetesProtobuf, encodeKubernetesProtobuf, KUBERNETES_PROTOBUF, supportsKubernetesProtobuf } from './codec.ts';
import { kubeType } from './schema.ts';

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'hex'));

/** Wraps a kind's message in the `k8s\0` + runtime.Unknown envelope, as the server under test would receive it. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const type = kubeType('Unknown');
  const body = type.encode(type.fromObject({ typeMeta: { apiVersion, kind }, raw })).finish();
  return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...body]);
}

function statusOf(fn: () => unknown): { code: number; reason: string; message: string } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    const s = (e as StatusError).status;
    return { code: s.code ?? 0, reason: s.reason ?? '', message: s.message ?? '' };
  }
  throw new Error('expected a StatusError');
}

const roundTrip = (obj: KubeObject): KubeObject => decodeKubernetesProtobuf(encodeKubernetesProtobuf(obj));

const fullMeta: ObjectMeta = {
  name: 'n',
  generateName: 'g-',
  namespace: 'ns',
  selfLink: '/api/v1/x',
  uid: '2f0c3a3e-1b1d-4f3e-9d7e-5b1f8a2c4d10',
  resourceVersion: '42',
  generation: 3,
  creationTimestamp: '2026-01-01T00:00:00Z',
  deletionTimestamp: '2026-01-02T03:04:05Z',
  deletionGracePeriodSeconds: 0,
  labels: { app: 'web', tier: '' },
  annotations: { note: 'x' },
  ownerReferences: [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u-1', controller: true, blockOwnerDeletion: false },
    { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u-2' },
  ],
  finalizers: ['a/b', 'kubernetes'],
  managedFields: [
    {
      manager: 'kubectl-create',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-01-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
    },
    { manager: 'ctl', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {}, subresource: 'status' },
  ],
};

describe('KUBERNETES_PROTOBUF', () => {
  it('is the media type client-go sends', () => {
    expect(KUBERNETES_PROTOBUF).toBe('application/vnd.kubernetes.protobuf');
  });
});

describe('decodeKubernetesProtobuf: bytes kubectl 1.32 sends (captured from kubectl create)', () => {
  // kubectl create configmap c1 --from-literal=a=b --from-file=bin.dat (bin.dat = 00 01 ff)
  it('ConfigMap: gogo writes empty strings, generation 0 and an empty creationTimestamp; JSON omits them', () => {
    const bytes = hex(
      '6b3873000a0f0a0276311209436f6e6669674d6170122c0a120a02633112001a0022002a0032003800420012060a01611201621a0e0a0762696e2e64617412030001ff1a002200',
    );
    expect(decodeKubernetesProtobuf(bytes)).toStrictEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c1' },
      data: { a: 'b' },
      binaryData: { 'bin.dat': 'AAH/' },
    });
  });

  // kubectl create secret generic s1 --from-literal=k=v
  it('Secret: data bytes become base64, an empty type is omitted', () => {
    const bytes = hex('6b3873000a0c0a0276311206536563726574121e0a120a02733112001a0022002a0032003800420012060a016b1201761a001a002200');
    expect(decodeKubernetesProtobuf(bytes)).toStrictEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's1' },
      data: { k: 'dg==' },
    });
  });

  // kubectl create namespace n1
  it('Namespace: spec and status are always written, as Go writes struct fields', () => {
    const bytes = hex('6b3873000a0f0a02763112094e616d657370616365121a0a120a026e3112001a0022002a0032003800420012001a020a001a002200');
    expect(decodeKubernetesProtobuf(bytes)).toStrictEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'n1' },
      spec: {},
      status: {},
    });
  });
});

describe('round trips', () => {
  it('ConfigMap with full ObjectMeta, binaryData and immutable', () => {
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: fullMeta,
      immutable: true,
      data: { a: 'b', empty: '' },
      binaryData: { bin: Buffer.from([0, 1, 255]).toString('base64') },
    };
    expect(roundTrip(cm)).toStrictEqual(cm);
  });

  it('ConfigMap immutable=false survives (a pointer field, present on the wire)', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, immutable: false };
    expect(roundTrip(cm)).toStrictEqual(cm);
  });

  it('Secret with data, stringData, type and immutable', () => {
    const s: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'default', labels: { a: 'b' } },
      immutable: false,
      data: { k: Buffer.from('v\u0000\u00ff').toString('base64') },
      stringData: { plain: 'text' },
      type: 'kubernetes.io/tls',
    };
    expect(roundTrip(s)).toStrictEqual(s);
  });

  it('Namespace with finalizers, phase and conditions', () => {
    const ns: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'n', deletionTimestamp: '2026-03-04T05:06:07Z', finalizers: ['x'] },
      spec: { finalizers: ['kubernetes'] },
      status: {
        phase: 'Terminating',
        conditions: [
          {
            type: 'NamespaceDeletionDiscoveryFailure',
            status: 'False',
            lastTransitionTime: '2026-03-04T05:06:07Z',
            reason: 'R',
            message: 'm',
          },
          { type: 'NamespaceContentRemaining', status: 'True' },
        ],
      },
    };
    expect(roundTrip(ns)).toStrictEqual(ns);
  });

  it('core/v1 Event with every field', () => {
    const ev: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'pod.1', namespace: 'default' },
      involvedObject: {
        kind: 'Pod',
        namespace: 'default',
        name: 'pod',
        uid: 'u',
        apiVersion: 'v1',
        resourceVersion: '7',
        fieldPath: 'spec.containers{c}',
      },
      reason: 'Started',
      message: 'Started container c',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:00:10Z',
      count: 2,
      type: 'Normal',
      eventTime: '2026-01-01T00:00:00.123456Z',
      series: { count: 5, lastObservedTime: '2026-01-01T00:00:09.000001Z' },
      action: 'Start',
      related: { kind: 'Node', name: 'node-1' },
      reportingComponent: 'kubelet',
      reportingInstance: 'node-1',
    };
    expect(roundTrip(ev)).toStrictEqual(ev);
  });

  it('a minimal Event keeps what Go always writes (involvedObject, source, reporting*)', () => {
    const ev: KubeObject = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' } };
    expect(roundTrip(ev)).toStrictEqual({ ...ev, involvedObject: {}, source: {}, reportingComponent: '', reportingInstance: '' });
  });

  it('DeleteOptions with preconditions and zero-valued pointer fields', () => {
    const opts = {
      apiVersion: 'meta.k8s.io/v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u', resourceVersion: '' },
      orphanDependents: false,
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    } as unknown as KubeObject;
    expect(roundTrip(opts)).toStrictEqual(opts);
    const v1 = { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' } as unknown as KubeObject;
    expect(roundTrip(v1)).toStrictEqual(v1);
  });

  it('autoscaling/v1 Scale', () => {
    const sc: KubeObject = {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: 'default', resourceVersion: '9' },
      spec: { replicas: 3 },
      status: { replicas: 2, selector: 'app=web' },
    };
    expect(roundTrip(sc)).toStrictEqual(sc);
    const zero: KubeObject = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: {}, status: { replicas: 0 } };
    expect(roundTrip(zero)).toStrictEqual(zero);
  });

  it('core/v1 ServiceAccount (kubectl create serviceaccount sends it as protobuf)', () => {
    const sa: KubeObject = {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'x', namespace: 'default', uid: 'u1' },
      secrets: [{ name: 's1', namespace: 'default' }, { name: 's2' }],
      imagePullSecrets: [{ name: 'reg' }],
      automountServiceAccountToken: false,
    };
    expect(roundTrip(sa)).toStrictEqual(sa);
    const bare: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'x' } };
    expect(roundTrip(bare)).toStrictEqual(bare);
  });

  it('core/v1 ResourceQuota (kubectl create quota sends it as protobuf): quantities as strings, scope selectors', () => {
    const q: KubeObject = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q', namespace: 'team' },
      spec: {
        hard: { 'count/widgets.example.kapi.dev': '5', configmaps: '10', 'requests.cpu': '500m' },
        scopes: ['NotTerminating'],
        scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] },
      },
      status: { hard: { configmaps: '10' }, used: { configmaps: '3' } },
    };
    expect(roundTrip(q)).toStrictEqual(q);
    const bare: KubeObject = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: {}, status: {} };
    expect(roundTrip(bare)).toStrictEqual(bare);
  });

  it('rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding with every field', () => {
    const rbac = 'rbac.authorization.k8s.io/v1';
    const role: KubeObject = {
      apiVersion: rbac,
      kind: 'Role',
      metadata: { name: 'system:r', namespace: 'ns', labels: { a: 'b' } },
      rules: [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['a'] },
        { verbs: ['*'], apiGroups: ['apps'], resources: ['*'] },
      ],
    };
    expect(roundTrip(role)).toStrictEqual(role);
    const clusterRole: KubeObject = {
      apiVersion: rbac,
      kind: 'ClusterRole',
      metadata: { name: 'edit' },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] }],
      aggregationRule: {
        clusterRoleSelectors: [
          { matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } },
          {
            matchExpressions: [
              { key: 'k', operator: 'In', values: ['a', 'b'] },
              { key: 'x', operator: 'Exists' },
            ],
          },
          {},
        ],
      },
    };
    expect(roundTrip(clusterRole)).toStrictEqual(clusterRole);
    const binding: KubeObject = {
      apiVersion: rbac,
      kind: 'RoleBinding',
      metadata: { name: 'b', namespace: 'ns' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'ServiceAccount', name: 'default', namespace: 'ns' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'system:r' },
    };
    expect(roundTrip(binding)).toStrictEqual(binding);
    const clusterBinding: KubeObject = { ...binding, kind: 'ClusterRoleBinding', metadata: { name: 'c' } };
    expect(roundTrip(clusterBinding)).toStrictEqual(clusterBinding);
  });

  it('rbac/v1 as Go writes it: rules and verbs without omitempty are null when nil, roleRef always, subjects omitempty', () => {
    const rbac = 'rbac.authorization.k8s.io/v1';
    // A list with no element is nil after protobuf, as in Go; rules and verbs have no omitempty, so Go writes null.
    expect(roundTrip({ apiVersion: rbac, kind: 'Role', metadata: { name: 'r' }, rules: [{ verbs: [], resources: [] }] })).toStrictEqual({
      apiVersion: rbac,
      kind: 'Role',
      metadata: { name: 'r' },
      rules: [{ verbs: null }],
    });
    expect(roundTrip({ apiVersion: rbac, kind: 'ClusterRole', metadata: { name: 'c' }, rules: [] })).toStrictEqual({
      apiVersion: rbac,
      kind: 'ClusterRole',
      metadata: { name: 'c' },
      rules: null,
    });
    // aggregationRule is a pointer: written when set, even empty (kubectl create clusterrole --aggregation-rule).
    const agg = { apiVersion: rbac, kind: 'ClusterRole', metadata: { name: 'a' }, aggregationRule: {} } as unknown as KubeObject;
    expect(roundTrip(agg)).toStrictEqual({ ...agg, rules: null });
    // null in the JSON (as kube itself writes it) encodes as an absent field.
    const nulls = { apiVersion: rbac, kind: 'Role', metadata: { name: 'n' }, rules: [{ verbs: null }] } as unknown as KubeObject;
    expect(roundTrip(nulls)).toStrictEqual(nulls);
    const bare = { apiVersion: rbac, kind: 'ClusterRoleBinding', metadata: { name: 'c' } } as KubeObject;
    expect(roundTrip(bare)).toStrictEqual({ ...bare, roleRef: { apiGroup: '', kind: '', name: '' } });
    expect(roundTrip({ ...bare, subjects: [] } as KubeObject)).toStrictEqual({ ...bare, roleRef: { apiGroup: '', kind: '', name: '' } });
  });

  it("rbac/v1 decodes gogo's empty strings as Go's JSON would write them", () => {
    // gogo-protobuf writes every string field, empty or not; a subject's apiGroup/namespace are omitempty, kind/name not.
    const type = kubeType('RoleBinding');
    const raw = type
      .encode(
        type.fromObject({
          metadata: { name: 'b', namespace: '' },
          subjects: [{ kind: 'User', apiGroup: '', name: '', namespace: '' }],
          roleRef: { apiGroup: '', kind: 'ClusterRole', name: 'view' },
        }),
      )
      .finish();
    expect(decodeKubernetesProtobuf(envelope('rbac.authorization.k8s.io/v1', 'RoleBinding', raw))).toStrictEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'b' },
      subjects: [{ kind: 'User', name: '' }],
      roleRef: { apiGroup: '', kind: 'ClusterRole', name: 'view' },
    });
    const cr = kubeType('ClusterRole');
    const selector = { matchLabels: {}, matchExpressions: [{ key: 'k', operator: 'Exists', values: [] }] };
    const crRaw = cr.encode(cr.fromObject({ metadata: {}, aggregationRule: { clusterRoleSelectors: [selector] } })).finish();
    expect(decodeKubernetesProtobuf(envelope('rbac.authorization.k8s.io/v1', 'ClusterRole', crRaw))).toMatchObject({
      rules: null,
      aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'k', operator: 'Exists' }] }] },
    });
  });

  it('rbac/v1: a field of the wrong JSON type is a 400 on encode, malformed bytes a 400 on decode', () => {
    const bad = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r' },
      rules: 'all',
    } as unknown as KubeObject;
    expect(statusOf(() => encodeKubernetesProtobuf(bad))).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(statusOf(() => decodeKubernetesProtobuf(envelope('rbac.authorization.k8s.io/v1', 'RoleBinding', hex('1aff01')))).code).toBe(400);
  });

  it('authentication.k8s.io/v1 TokenRequest: the request (audiences always written) and the answer with its token', () => {
    const req: KubeObject = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { name: 'x', namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { audiences: ['a', 'b'], expirationSeconds: 7200, boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's', uid: 'u' } },
      status: { token: 'eyJ.x.y', expirationTimestamp: '2026-01-01T02:00:00Z' },
    };
    expect(roundTrip(req)).toStrictEqual(req);
    const minimal = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: {} } as KubeObject;
    expect(roundTrip(minimal)).toStrictEqual({ ...minimal, spec: { audiences: [] }, status: { token: '' } });
  });
});

describe('times', () => {
  it('Time is whole seconds in UTC; MicroTime keeps microseconds; offsets normalise to Z', () => {
    const ev = roundTrip({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', creationTimestamp: '2026-01-01T02:00:00.987654321+02:00' },
      eventTime: '2026-01-01T00:00:00.5Z',
      firstTimestamp: '1970-01-01T00:00:00Z',
    });
    expect(ev.metadata.creationTimestamp).toBe('2026-01-01T00:00:00Z');
    expect(ev.eventTime).toBe('2026-01-01T00:00:00.500000Z');
    // The Unix epoch is a set time (seconds=0 on the wire), not Go's zero time.
    expect(ev.firstTimestamp).toBe('1970-01-01T00:00:00Z');
  });

  it('decodes explicit seconds/nanos, including times before 1970', () => {
    const type = kubeType('ConfigMap');
    const raw = type.encode(type.fromObject({ metadata: { name: 'x', creationTimestamp: { seconds: -1, nanos: 0 } } })).finish();
    expect(decodeKubernetesProtobuf(envelope('v1', 'ConfigMap', raw)).metadata.creationTimestamp).toBe('1969-12-31T23:59:59Z');
  });

  it('rejects a malformed time on encode with 400', () => {
    const bad: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', creationTimestamp: 'yesterday' } };
    expect(statusOf(() => encodeKubernetesProtobuf(bad)).code).toBe(400);
  });

  it('null times are left out, as Go reads JSON null as the zero time', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', creationTimestamp: null } } as unknown as KubeObject;
    expect(roundTrip(cm)).toStrictEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  });
});

describe('envelope', () => {
  it('fills a missing apiVersion/kind from the defaults (the endpoint), as Kubernetes does', () => {
    const raw = kubeType('ConfigMap')
      .encode(kubeType('ConfigMap').fromObject({ metadata: { name: 'c' } }))
      .finish();
    const body = envelope('', '', raw);
    expect(decodeKubernetesProtobuf(body, { apiVersion: 'v1', kind: 'ConfigMap' })).toStrictEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
    });
    expect(statusOf(() => decodeKubernetesProtobuf(body))).toMatchObject({ code: 400, reason: 'BadRequest' });
  });

  it('400 without the k8s\\0 magic', () => {
    for (const bytes of [new Uint8Array(0), hex('6b3873'), Buffer.from('{"kind":"ConfigMap"}')]) {
      expect(statusOf(() => decodeKubernetesProtobuf(bytes))).toMatchObject({ code: 400, reason: 'BadRequest' });
    }
  });

  it('400 for truncated or garbled bytes', () => {
    const good = encodeKubernetesProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } });
    expect(statusOf(() => decodeKubernetesProtobuf(good.subarray(0, good.length - 3))).code).toBe(400);
    expect(statusOf(() => decodeKubernetesProtobuf(hex('6b387300ffffffffffffffffffff'))).code).toBe(400);
    // A well-formed envelope whose raw is not a valid ConfigMap message.
    expect(statusOf(() => decodeKubernetesProtobuf(envelope('v1', 'ConfigMap', hex('0aff01')))).code).toBe(400);
  });

  it('415 naming the apiVersion and kind it does not model', () => {
    const s = statusOf(() => decodeKubernetesProtobuf(envelope('apps/v1', 'Deployment', new Uint8Array(0))));
    expect(s).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
    expect(s.message).toContain('"Deployment"');
    expect(s.message).toContain('"apps/v1"');
    expect(statusOf(() => decodeKubernetesProtobuf(envelope('v1', 'Pod', new Uint8Array(0)))).code).toBe(415);
    expect(statusOf(() => decodeKubernetesProtobuf(envelope('v2', 'ConfigMap', new Uint8Array(0)))).code).toBe(415);
    expect(statusOf(() => encodeKubernetesProtobuf({ apiVersion: 'v1', kind: 'Pod', metadata: {} })).code).toBe(415);
  });

  it('supportsKubernetesProtobuf lists the modelled kinds', () => {
    expect(supportsKubernetesProtobuf('v1', 'ConfigMap')).toBe(true);
    expect(supportsKubernetesProtobuf('v1', 'Event')).toBe(true);
    expect(supportsKubernetesProtobuf('autoscaling/v1', 'Scale')).toBe(true);
    expect(supportsKubernetesProtobuf('apps/v1', 'DeleteOptions')).toBe(true);
    for (const kind of ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'])
      expect(supportsKubernetesProtobuf('rbac.authorization.k8s.io/v1', kind)).toBe(true);
    expect(supportsKubernetesProtobuf('rbac.authorization.k8s.io/v1', 'RoleList')).toBe(false);
    expect(supportsKubernetesProtobuf('rbac.authorization.k8s.io/v1beta1', 'Role')).toBe(false);
    expect(supportsKubernetesProtobuf('v1', 'toString')).toBe(false);
    expect(supportsKubernetesProtobuf('events.k8s.io/v1beta1', 'Event')).toBe(false);
  });

  it('encode writes the magic and an Unknown with the TypeMeta', () => {
    const bytes = encodeKubernetesProtobuf({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } });
    expect(Buffer.from(bytes.subarray(0, 4)).toString('latin1')).toBe('k8s\u0000');
    const unk = kubeType('Unknown').toObject(kubeType('Unknown').decode(bytes.subarray(4)));
    expect(unk.typeMeta).toStrictEqual({ apiVersion: 'v1', kind: 'Namespace' });
  });
});

describe('hostile bodies', () => {
  const envelope = (raw: Uint8Array): Uint8Array => {
    const unknown = kubeType('Unknown');
    const msg = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' }, raw })).finish();
    return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...msg]);
  };
  const statusOf = (f: () => unknown): StatusError => {
    try {
      f();
    } catch (e) {
      if (e instanceof StatusError) return e;
      throw e;
    }
    throw new Error('expected a StatusError');
  };

  it('keys __proto__ and constructor in maps round-trip as data', () => {
    const cm = JSON.parse(
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"__proto__":"l"},"annotations":{"constructor":"c"}},"data":{"__proto__":"x","prototype":"y"},"binaryData":{"__proto__":"eA=="}}',
    ) as KubeObject;
    const back = decodeKubernetesProtobuf(encodeKubernetesProtobuf(cm));
    expect(JSON.stringify(back)).toBe(JSON.stringify(cm));
    expect(Object.getPrototypeOf(back.data)).toBe(Object.prototype);
  });

  it('50,000 nested groups are a 400, not a stack overflow', () => {
    const err = statusOf(() => decodeKubernetesProtobuf(Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...new Array(50000).fill(0x0b)])));
    expect(err.status).toMatchObject({ code: 400, reason: 'BadRequest', message: 'invalid protobuf envelope: max depth exceeded' });
    const inner = statusOf(() => decodeKubernetesProtobuf(envelope(Uint8Array.from(new Array(50000).fill(0x2b)))));
    expect(inner.status).toMatchObject({ code: 400, message: 'invalid protobuf ConfigMap: max depth exceeded' });
  });

  it('FieldsV1 JSON nested deeper than 10,000 levels is a 400', () => {
    const meta = (depth: number) => ({
      name: 'a',
      managedFields: [
        {
          manager: 'm',
          fieldsType: 'FieldsV1',
          fieldsV1: { Raw: Buffer.from(`${'{"f:a":'.repeat(depth)}{}${'}'.repeat(depth)}`).toString('base64') },
        },
      ],
    });
    const cm = kubeType('ConfigMap');
    const bytes = (depth: number) => envelope(cm.encode(cm.fromObject({ metadata: meta(depth) })).finish());
    expect(decodeKubernetesProtobuf(bytes(9_000)).metadata.managedFields?.[0]?.manager).toBe('m');
    const err = statusOf(() => decodeKubernetesProtobuf(bytes(50_000)));
    expect(err.status).toMatchObject({ code: 400, message: 'managedFields: fieldsV1 nests deeper than 10000 levels: exceeded max depth' });
  });
});
