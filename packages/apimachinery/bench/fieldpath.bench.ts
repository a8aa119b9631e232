/**
 * The field-set model server-side apply runs on every write, against the JSON work of the same managedFields:
 * FieldsV1 decode (text → FieldSet, and the already-parsed object → FieldSet) vs JSON.parse of that text; encode
 * (FieldSet → FieldsV1 object, → text) vs JSON.stringify of the object; union / difference / intersection of two
 * managers' sets, building a set from its paths (as a typed walk does) and looking each path up, vs JSON.parse of
 * one of them. Sets: a Deployment's two managers (kubectl's, 30 fields, and the
 * deployment controller's status, 21) as kube-apiserver writes them, and a ConfigMap of 20 keys.
 * Figures are ops/s (best of alternating rounds); ratio = kapi / reference. Run: `npm run bench` in packages/apimachinery.
 */
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import {
  type FieldSet,
  FieldSetBuilder,
  fieldSetFromFieldsV1,
  fieldSetFromFieldsV1Json,
  fieldSetToFieldsV1,
  fieldSetToFieldsV1Json,
} from '../src/index.ts';

const ROUNDS = 7;
const N = 20_000;

const kubectl =
  '{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}';
const controller =
  '{"f:metadata":{"f:annotations":{"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},"k:{\\"type\\":\\"Available\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},"k:{\\"type\\":\\"Progressing\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updatedReplicas":{}}}';
const configMap = JSON.stringify({
  'f:data': Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f:key-${String(i).padStart(2, '0')}`, {}])),
  'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
});
// A second ConfigMap writer owning half the keys and one more.
const configMap2 = JSON.stringify({
  'f:data': Object.fromEntries([
    ...Array.from({ length: 10 }, (_, i) => [`f:key-${String(i * 2).padStart(2, '0')}`, {}]),
    ['f:key-99', {}],
  ]),
});

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

const rows: BenchRow[] = [];
const sizes: string[] = [];
for (const [name, a, b] of [
  ['Deployment', kubectl, controller],
  ['ConfigMap', configMap, configMap2],
] as const) {
  const objA = JSON.parse(a) as unknown;
  const setA: FieldSet = fieldSetFromFieldsV1(objA);
  const setB: FieldSet = fieldSetFromFieldsV1Json(b);
  sizes.push(`${name} ${setA.size()} and ${setB.size()} fields`);
  const parse = () => JSON.parse(a);
  const stringify = () => JSON.stringify(objA);
  rows.push(await row(`${name}: decode text`, () => fieldSetFromFieldsV1Json(a), parse));
  rows.push(await row(`${name}: decode object`, () => fieldSetFromFieldsV1(objA), parse));
  rows.push(await row(`${name}: encode object`, () => fieldSetToFieldsV1(setA), stringify));
  rows.push(await row(`${name}: encode text`, () => fieldSetToFieldsV1Json(setA), stringify));
  const paths = setA.paths();
  rows.push(
    await row(
      `${name}: build from ${paths.length} paths`,
      () => {
        const b = new FieldSetBuilder();
        for (const p of paths) b.insert(p);
        return b.build();
      },
      parse,
    ),
  );
  rows.push(
    await row(
      `${name}: has × ${paths.length}`,
      () => {
        for (const p of paths) setA.has(p);
      },
      parse,
    ),
  );
  rows.push(await row(`${name}: union`, () => setA.union(setB), parse));
  rows.push(await row(`${name}: difference`, () => setA.difference(setB), parse));
  rows.push(await row(`${name}: intersection`, () => setA.intersection(setB), parse));
  rows.push(await row(`${name}: recursiveDifference`, () => setA.recursiveDifference(setB), parse));
  rows.push(await row(`${name}: equals (copy)`, () => setA.equals(setA.union(setB).difference(setB)), parse));
}

printTable({
  title: 'Field sets (server-side apply) vs JSON of the same FieldsV1 (ops/s, best of 7 alternating rounds)',
  notes: [
    'references: JSON.parse of the FieldsV1 text (decode and set operations), JSON.stringify of its object (encode)',
    `sets: ${sizes.join('; ')}`,
  ],
  referenceName: 'JSON',
  rows,
});
