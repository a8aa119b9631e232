import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { OBJECT_META_OPENAPI } from '@kapi/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from './control-plane.ts';
import { startTempControlPlane, stopTempControlPlane } from './test-support/kubectl.ts';

/**
 * The list and map topology every built-in kind publishes at /openapi/v3 is kube's: server-side apply (kapi's and any
 * client's, e.g. kubectl's client-side merge or controller-runtime's) types objects by it, so a list kapi calls atomic
 * where kube keys it would own, merge and conflict differently. The expected extensions are kube 1.33's
 * api/openapi-spec/v3 (api__v1, apis__rbac.authorization.k8s.io__v1, apis__coordination.k8s.io__v1,
 * apis__events.k8s.io__v1, apis__apiextensions.k8s.io__v1), for every array and map field kapi serves: the
 * `+listType` / `+listMapKey` / `+structType` / `+mapType` / `+patchStrategy` / `+patchMergeKey` markers of kube's Go
 * types. Not compared: JSONSchemaProps under a CRD version's `schema` (kapi keeps it open), and the review kinds
 * (TokenReview, SubjectAccessReview…), which are never stored and so never applied.
 */

const T = 30_000;

type Ext = Partial<Record<'listType' | 'listMapKeys' | 'mapType' | 'patchStrategy' | 'patchMergeKey', unknown>>;

const EXT_KEYS: Record<string, keyof Ext> = {
  'x-kubernetes-list-type': 'listType',
  'x-kubernetes-list-map-keys': 'listMapKeys',
  'x-kubernetes-map-type': 'mapType',
  'x-kubernetes-patch-strategy': 'patchStrategy',
  'x-kubernetes-patch-merge-key': 'patchMergeKey',
};

const atomic: Ext = { listType: 'atomic' };
const atomicStruct: Ext = { mapType: 'atomic' };
const granularMap: Ext = {};

/** kube's ObjectMeta, the same under every kind. */
const OBJECT_META: Record<string, Ext> = {
  '.metadata.annotations': granularMap,
  '.metadata.labels': granularMap,
  '.metadata.finalizers': { listType: 'set', patchStrategy: 'merge' },
  '.metadata.managedFields': atomic,
  '.metadata.ownerReferences': { listType: 'map', listMapKeys: ['uid'], patchStrategy: 'merge', patchMergeKey: 'uid' },
  '.metadata.ownerReferences[]': atomicStruct,
};

const POLICY_RULES: Record<string, Ext> = {
  '.rules': atomic,
  '.rules[].apiGroups': atomic,
  '.rules[].nonResourceURLs': atomic,
  '.rules[].resourceNames': atomic,
  '.rules[].resources': atomic,
  '.rules[].verbs': atomic,
};

const BINDING: Record<string, Ext> = { '.roleRef': atomicStruct, '.subjects': atomic, '.subjects[]': atomicStruct };

const CRD_NAMES = (at: string): Record<string, Ext> => ({ [`${at}.categories`]: atomic, [`${at}.shortNames`]: atomic });

/** Group-version document → schema name → path → extensions, as kube publishes them. */
const KUBE: Record<string, Record<string, Record<string, Ext>>> = {
  'api/v1': {
    'io.k8s.api.core.v1.ConfigMap': { ...OBJECT_META, '.binaryData': granularMap, '.data': granularMap },
    'io.k8s.api.core.v1.Secret': { '.data': granularMap, '.stringData': granularMap },
    'io.k8s.api.core.v1.ServiceAccount': {
      '.imagePullSecrets': atomic,
      '.imagePullSecrets[]': atomicStruct,
      '.secrets': { listType: 'map', listMapKeys: ['name'], patchStrategy: 'merge', patchMergeKey: 'name' },
      '.secrets[]': atomicStruct,
    },
    'io.k8s.api.core.v1.Namespace': {
      '.spec.finalizers': atomic,
      '.status.conditions': { listType: 'map', listMapKeys: ['type'], patchStrategy: 'merge', patchMergeKey: 'type' },
    },
    'io.k8s.api.core.v1.Event': { '.involvedObject': atomicStruct, '.related': atomicStruct },
  },
  'apis/events.k8s.io/v1': {
    'io.k8s.api.events.v1.Event': { '.regarding': atomicStruct, '.related': atomicStruct },
  },
  'apis/coordination.k8s.io/v1': { 'io.k8s.api.coordination.v1.Lease': {} },
  'apis/rbac.authorization.k8s.io/v1': {
    'io.k8s.api.rbac.v1.Role': POLICY_RULES,
    'io.k8s.api.rbac.v1.ClusterRole': {
      ...POLICY_RULES,
      '.aggregationRule.clusterRoleSelectors': atomic,
      '.aggregationRule.clusterRoleSelectors[]': atomicStruct,
      '.aggregationRule.clusterRoleSelectors[].matchExpressions': atomic,
      '.aggregationRule.clusterRoleSelectors[].matchExpressions[].values': atomic,
      '.aggregationRule.clusterRoleSelectors[].matchLabels': granularMap,
    },
    'io.k8s.api.rbac.v1.RoleBinding': BINDING,
    'io.k8s.api.rbac.v1.ClusterRoleBinding': BINDING,
  },
  'apis/apiextensions.k8s.io/v1': {
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition': {
      ...CRD_NAMES('.spec.names'),
      '.spec.versions': atomic,
      '.spec.versions[].additionalPrinterColumns': atomic,
      '.spec.versions[].selectableFields': atomic,
      '.spec.conversion.webhook.conversionReviewVersions': atomic,
      '.status.conditions': { listType: 'map', listMapKeys: ['type'] },
      ...CRD_NAMES('.status.acceptedNames'),
      '.status.storedVersions': atomic,
    },
  },
};

interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  allOf?: Schema[];
  [k: string]: unknown;
}

/**
 * Every array, map (additionalProperties) or field carrying a list/map extension under `schema`, by path, with those
 * extensions; $refs followed (once per branch). ObjectMeta only when `withMeta`.
 */
function topology(components: Record<string, Schema>, schema: Schema, withMeta: boolean): Record<string, Ext> {
  const out: Record<string, Ext> = {};
  const walk = (s: Schema | undefined, path: string, seen: readonly string[]): void => {
    if (!s) return;
    if (!withMeta && path === '.metadata') return;
    if (s.$ref) {
      const name = s.$ref.split('/').pop() ?? '';
      if (!seen.includes(name)) walk(components[name], path, [...seen, name]);
    }
    for (const sub of s.allOf ?? []) walk(sub, path, seen);
    const ext: Ext = {};
    for (const [k, v] of Object.entries(s)) if (EXT_KEYS[k]) ext[EXT_KEYS[k]] = v;
    const isMap = typeof s.additionalProperties === 'object';
    if (s.type === 'array' || isMap || Object.keys(ext).length > 0) out[path] = { ...out[path], ...ext };
    for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${path}.${k}`, seen);
    if (s.items) walk(s.items, `${path}[]`, seen);
    if (isMap) walk(s.additionalProperties as Schema, `${path}{}`, seen);
  };
  walk(schema, '', []);
  return out;
}

describe('list and map types at /openapi/v3 are kube’s', () => {
  let cp: ControlPlane;
  let tmp: string;
  let ca: Buffer;
  beforeAll(async () => {
    ({ cp, tmp } = await startTempControlPlane('kapi-openapi-list-types-'));
    const kubeconfig = await readFile(cp.kubeconfigPath, 'utf8');
    ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kubeconfig)?.[1] ?? '', 'base64');
  }, T);
  afterAll(() => stopTempControlPlane(cp, tmp), T);

  const get = (path: string): Promise<{ components: { schemas: Record<string, Schema> } }> =>
    new Promise((resolve, reject) => {
      const req = request(new URL(path, cp.url), { ca, headers: { authorization: `Bearer ${cp.token}` } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(`${path}: ${res.statusCode} ${body}`))));
      });
      req.on('error', reject);
      req.end();
    });

  it('the ObjectMeta the field manager types objects with (registry OBJECT_META_OPENAPI) is the one served', () => {
    const meta = topology({}, { type: 'object', properties: { metadata: OBJECT_META_OPENAPI as Schema } }, true);
    expect(meta).toEqual(OBJECT_META);
  });

  for (const [gv, kinds] of Object.entries(KUBE)) {
    it(`${gv}: ${Object.keys(kinds)
      .map((k) => k.split('.').pop())
      .join(', ')}`, { timeout: T }, async () => {
      const schemas = (await get(`/openapi/v3/${gv}`)).components.schemas;
      for (const [name, expected] of Object.entries(kinds)) {
        const schema = schemas[name];
        expect(schema, name).toBeDefined();
        const withMeta = Object.keys(expected).some((p) => p.startsWith('.metadata'));
        expect({ [name]: topology(schemas, schema as Schema, withMeta) }).toEqual({ [name]: expected });
      }
    });
  }
});
