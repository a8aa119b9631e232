/**
 * What ValidatingAdmissionPolicies cost a write: ConfigMap creates over keep-alive HTTP/1.1 on loopback through a
 * GenericAPIServer (MemoryStorage) whose admission is AdmissionControl running only the ValidatingAdmissionPolicy plugin, with none, one and five
 * ValidatingAdmissionPolicies bound to every ConfigMap write (each a CEL validation over the object; of the five, one
 * has a param object and a variable, one a matchCondition), next to the same server with no admission at all. Every
 * create passes all policies, so each one is evaluated in full. The client runs in this process with CONCURRENCY
 * requests in flight, the same for both servers. Figures are requests/s, best of alternating rounds; ratio = with
 * admission / without.
 * Run: `npm run bench` in packages/admission.
 */
import { Agent } from 'node:http';
import { ConfigMap, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, callJson, printTable, rateWithConcurrency } from '../../../scripts/bench-kit.ts';
import { GenericAPIServer, listen } from '../../server-core/src/index.ts';
import { AdmissionControl } from '../src/admission-control.ts';

const ROUNDS = 5;
const N = 1_500;
const CONCURRENCY = 16;
const COLLECTION = '/api/v1/namespaces/default/configmaps';
const POLICY_PATH = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const BINDING_PATH = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

const call = (url: string, method: string, path: string, status: number, body?: unknown, type?: string) =>
  callJson(agent, url, method, path, status, body, type);

const configMaps = {
  apiGroups: [''],
  apiVersions: ['v1'],
  operations: ['CREATE', 'UPDATE'],
  resources: ['configmaps'],
};

/** Five policies of the kinds users write: labels required, sizes bounded, names checked, a param limit, a guarded rule. */
const ALL_POLICIES = [
  { name: 'require-app-label', validations: [{ expression: "has(object.metadata.labels) && 'app' in object.metadata.labels" }] },
  {
    name: 'bounded-values',
    validations: [
      { expression: '!has(object.data) || object.data.all(k, size(object.data[k]) <= 1024)', message: 'values are at most 1 KiB' },
    ],
  },
  { name: 'name-format', validations: [{ expression: "object.metadata.name.matches('^[a-z0-9-]+$')" }] },
  {
    name: 'max-keys',
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    variables: [{ name: 'keys', expression: 'has(object.data) ? size(object.data) : 0' }],
    validations: [
      { expression: 'variables.keys <= int(params.data.maxKeys)', messageExpression: "'too many keys: ' + string(variables.keys)" },
    ],
  },
  {
    name: 'no-secrets-in-data',
    matchConditions: [{ name: 'has-data', expression: 'has(object.data)' }],
    validations: [{ expression: "!object.data.exists(k, k.startsWith('password'))", reason: 'Forbidden' }],
  },
];

/** A server with no admission (`policies` undefined) or AdmissionControl with the first `policies` of ALL_POLICIES. */
async function server(policies?: number): Promise<(round: number) => Promise<number>> {
  const storage = new MemoryStorage({ compaction: false });
  const withPolicies = policies !== undefined;
  const POLICIES = ALL_POLICIES.slice(0, policies ?? 0);
  // The policy plugin alone (with NamespaceLifecycle's name): what is measured is the policies' cost.
  const admission = withPolicies
    ? new AdmissionControl({ enable: [], disable: ['ResourceQuota', 'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook'] })
    : undefined;
  const s = new GenericAPIServer({
    storage,
    resources: [Namespace, ConfigMap],
    ...(admission ? { providers: [admission.provider()], admission: admission.chain } : {}),
  });
  await s.start();
  const { url } = await listen(s.handler);
  if (withPolicies) {
    await call(url, 'POST', COLLECTION, 201, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'limits', namespace: 'default', labels: { app: 'bench' } },
      data: { maxKeys: '10' },
    });
    for (const p of POLICIES) {
      const { name, ...spec } = p;
      await call(url, 'POST', POLICY_PATH, 201, {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name },
        spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [configMaps] }, ...spec },
      });
      await call(url, 'POST', BINDING_PATH, 201, {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: `${name}-binding` },
        spec: {
          policyName: name,
          validationActions: ['Deny'],
          ...(p.paramKind ? { paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' } } : {}),
        },
      });
    }
    // The policies are read from the watch caches: wait until a write they refuse is refused.
    for (; POLICIES.length > 0; ) {
      const refused = await call(url, 'POST', `${COLLECTION}?dryRun=All`, 201, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'probe', namespace: 'default' },
      }).then(
        () => false,
        () => true,
      );
      if (refused) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  let run = 0;
  return async () => {
    const id = run++;
    return rateWithConcurrency(N, CONCURRENCY, (i) =>
      call(url, 'POST', COLLECTION, 201, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${id}-${i}`, namespace: 'default', labels: { app: 'bench' } },
        data: { color: 'blue', size: '3', mode: 'fast' },
      }),
    );
  };
}

const without = await server();
const rows: BenchRow[] = [];
for (const n of [0, 1, 5]) {
  const withPolicies = await server(n);
  await withPolicies(0);
  await without(0);
  const name = n === 0 ? 'create, policy plugin, no policy' : `create, ${n} ${n === 1 ? 'policy' : 'policies'}`;
  rows.push([name, ...(await bestOfAlternating(ROUNDS, withPolicies, without))]);
}
printTable({
  title: `ConfigMap creates over HTTP/1.1 on loopback, ${CONCURRENCY} in flight: AdmissionControl with ValidatingAdmissionPolicies vs no admission (requests/s, best of ${ROUNDS} alternating rounds)`,
  referenceName: 'none',
  rows,
});
process.exit(0);
