/**
 * The typed walks server-side apply runs on every write, on a Deployment (ObjectMeta, a pod template with two
 * containers, ports, env, volumes, resources; its OpenAPI schema as kube publishes it, trimmed to the fields set):
 * toFieldSet of the new object, compare of old and new (one image changed), merge of an apply configuration onto
 * the live object, validate with duplicate detection — each against the JSON work a write does anyway on the same
 * object (JSON.stringify, and JSON.parse of that text).
 * Figures are ops/s (best of alternating rounds); ratio = kapi / reference. Run: `npm run bench` in packages/apimachinery.
 */
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import { compare } from '../src/typed/compare.ts';
import { fromOpenAPI, type OpenAPISchemaObject } from '../src/typed/from-openapi.ts';
import { merge } from '../src/typed/merge.ts';
import { toFieldSet } from '../src/typed/to-field-set.ts';
import { validate } from '../src/typed/validate.ts';

const ROUNDS = 7;
const N = 5_000;

const str: OpenAPISchemaObject = { type: 'string' };
const int: OpenAPISchemaObject = { type: 'integer' };
const bool: OpenAPISchemaObject = { type: 'boolean' };
const strMap: OpenAPISchemaObject = { type: 'object', additionalProperties: str };
const quantity: OpenAPISchemaObject = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
const obj = (properties: Record<string, OpenAPISchemaObject>, extra: Record<string, unknown> = {}): OpenAPISchemaObject => ({
  type: 'object',
  properties,
  ...extra,
});
const mapList = (items: OpenAPISchemaObject, keys: string[]): OpenAPISchemaObject => ({
  type: 'array',
  items,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': keys,
});
const meta = obj({
  name: str,
  namespace: str,
  uid: str,
  resourceVersion: str,
  generation: int,
  creationTimestamp: { type: 'string', format: 'date-time' },
  labels: strMap,
  annotations: strMap,
  finalizers: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
  managedFields: {
    type: 'array',
    items: obj({ manager: str, fieldsV1: obj({}, { 'x-kubernetes-preserve-unknown-fields': true }) }),
    'x-kubernetes-list-type': 'atomic',
  },
});
const container = obj({
  name: str,
  image: str,
  imagePullPolicy: str,
  args: { type: 'array', items: str },
  command: { type: 'array', items: str },
  ports: mapList(obj({ containerPort: int, protocol: { type: 'string', default: 'TCP' }, name: str }), ['containerPort', 'protocol']),
  env: mapList(
    obj({ name: str, value: str, valueFrom: obj({ fieldRef: obj({ fieldPath: str }, { 'x-kubernetes-map-type': 'atomic' }) }) }),
    ['name'],
  ),
  resources: obj({
    limits: { type: 'object', additionalProperties: quantity },
    requests: { type: 'object', additionalProperties: quantity },
  }),
  volumeMounts: mapList(obj({ name: str, mountPath: str, readOnly: bool }), ['mountPath']),
  readinessProbe: obj({ httpGet: obj({ path: str, port: { type: 'string', format: 'int-or-string' } }), periodSeconds: int }),
  terminationMessagePath: str,
  terminationMessagePolicy: str,
});
const deploymentSchema = obj({
  apiVersion: str,
  kind: str,
  metadata: meta,
  spec: obj({
    replicas: int,
    selector: obj({ matchLabels: strMap }, { 'x-kubernetes-map-type': 'atomic' }),
    strategy: obj({ type: str, rollingUpdate: obj({ maxSurge: quantity, maxUnavailable: quantity }) }),
    revisionHistoryLimit: int,
    progressDeadlineSeconds: int,
    template: obj({
      metadata: meta,
      spec: obj({
        containers: mapList(container, ['name']),
        volumes: mapList(obj({ name: str, configMap: obj({ name: str }), emptyDir: obj({}) }), ['name']),
        restartPolicy: str,
        terminationGracePeriodSeconds: int,
        dnsPolicy: str,
        schedulerName: str,
        securityContext: obj({ runAsNonRoot: bool }),
      }),
    }),
  }),
  status: obj({
    observedGeneration: int,
    replicas: int,
    readyReplicas: int,
    conditions: mapList(obj({ type: str, status: str, reason: str, message: str, lastUpdateTime: str, lastTransitionTime: str }), ['type']),
  }),
});

const c = (name: string, image: string) => ({
  name,
  image,
  imagePullPolicy: 'IfNotPresent',
  args: ['--port=8080', '--verbose'],
  ports: [{ containerPort: 8080, protocol: 'TCP', name: 'http' }],
  env: [
    { name: 'MODE', value: 'prod' },
    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
  ],
  resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
  volumeMounts: [{ name: 'config', mountPath: '/etc/app', readOnly: true }],
  readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
});
const live = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: 'b6f1c8a2-0000-4000-8000-000000000001',
    resourceVersion: '12345',
    generation: 3,
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { app: 'web', tier: 'frontend' },
    annotations: { 'deployment.kubernetes.io/revision': '3' },
  },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [c('web', 'registry.example/web:1.0'), c('sidecar', 'registry.example/proxy:2.1')],
        volumes: [{ name: 'config', configMap: { name: 'web-config' } }],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        schedulerName: 'default-scheduler',
        securityContext: {},
      },
    },
  },
  status: {
    observedGeneration: 3,
    replicas: 3,
    readyReplicas: 3,
    conditions: [
      {
        type: 'Available',
        status: 'True',
        reason: 'MinimumReplicasAvailable',
        message: 'ok',
        lastUpdateTime: 't',
        lastTransitionTime: 't',
      },
      {
        type: 'Progressing',
        status: 'True',
        reason: 'NewReplicaSetAvailable',
        message: 'ok',
        lastUpdateTime: 't',
        lastTransitionTime: 't',
      },
    ],
  },
};
const next = structuredClone(live);
next.spec.template.spec.containers[0] = c('web', 'registry.example/web:1.1');
const config = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web', tier: 'frontend' } },
  spec: { replicas: 4, template: { spec: { containers: [{ name: 'web', image: 'registry.example/web:1.2' }] } } },
};

const type = fromOpenAPI(deploymentSchema);
const text = JSON.stringify(live);
const fields = toFieldSet(type, live);

async function row(name: string, kapi: () => unknown, reference: () => unknown): Promise<BenchRow> {
  const [k, r] = await bestOfAlternating(
    ROUNDS,
    async () =>
      timeOps(N, () => {
        for (let i = 0; i < N; i++) kapi();
      }),
    async () =>
      timeOps(N, () => {
        for (let i = 0; i < N; i++) reference();
      }),
  );
  return [name, k, r];
}

const rows: BenchRow[] = [
  await row(
    'toFieldSet vs stringify',
    () => toFieldSet(type, next),
    () => JSON.stringify(next),
  ),
  await row(
    'compare vs stringify',
    () => compare(type, live, next),
    () => JSON.stringify(next),
  ),
  await row(
    'merge (apply) vs stringify',
    () => merge(type, live, config),
    () => JSON.stringify(next),
  ),
  await row(
    'validate vs stringify',
    () => validate(type, next, { allowDuplicates: true }),
    () => JSON.stringify(next),
  ),
  await row(
    'toFieldSet vs parse',
    () => toFieldSet(type, next),
    () => JSON.parse(text),
  ),
];
printTable({
  title: `Typed walks of a Deployment (${fields.size()} fields, ${text.length} bytes of JSON), ops/s`,
  referenceName: 'JSON',
  rows,
});
