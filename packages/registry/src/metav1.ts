import type { MetaV1LabelSelector } from '@kapi/apimachinery';
import { z } from 'zod';
import { atomicList, atomicMap } from './kube-extensions.ts';
import type { JSONSchema } from './openapi.ts';

/** metav1 building blocks for resource schemas, and ObjectMeta as OpenAPI publishes it. */

const labelSelectorRequirement = z.object({
  key: z.string(),
  operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
  values: atomicList(z.array(z.string())).optional(),
});

/** metav1.LabelSelector (matchLabels, matchExpressions), atomic as in Kubernetes. */
export const labelSelectorSchema: z.ZodType<MetaV1LabelSelector> = atomicMap(
  z.object({
    matchLabels: z.record(z.string(), z.string()).optional(),
    matchExpressions: atomicList(z.array(labelSelectorRequirement)).optional(),
  }),
);

const str: JSONSchema = { type: 'string' };
const stringMap: JSONSchema = { type: 'object', additionalProperties: { type: 'string' } };
const time: JSONSchema = { type: 'string', format: 'date-time' };

/** io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta, inlined where a kind's schema says `metadata`. */
export const OBJECT_META_OPENAPI: JSONSchema = {
  type: 'object',
  description: 'Standard object metadata.',
  properties: {
    name: str,
    generateName: str,
    namespace: str,
    uid: str,
    resourceVersion: str,
    generation: { type: 'integer', format: 'int64' },
    creationTimestamp: time,
    deletionTimestamp: time,
    deletionGracePeriodSeconds: { type: 'integer', format: 'int64' },
    labels: stringMap,
    annotations: stringMap,
    ownerReferences: {
      type: 'array',
      items: {
        type: 'object',
        required: ['apiVersion', 'kind', 'name', 'uid'],
        properties: {
          apiVersion: str,
          kind: str,
          name: str,
          uid: str,
          controller: { type: 'boolean' },
          blockOwnerDeletion: { type: 'boolean' },
        },
        'x-kubernetes-map-type': 'atomic',
      },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'uid',
    },
    finalizers: { type: 'array', items: str, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
    managedFields: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          apiVersion: str,
          fieldsType: str,
          fieldsV1: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          manager: str,
          operation: str,
          subresource: str,
          time,
        },
      },
      'x-kubernetes-list-type': 'atomic',
    },
    selfLink: str,
  },
};

/** Fields of ObjectMeta, for unknown-field detection. */
export const OBJECT_META_FIELDS: ReadonlySet<string> = new Set(Object.keys(OBJECT_META_OPENAPI.properties ?? {}));

/** ObjectMeta's lists of objects (ownerReferences, managedFields) and the fields their items declare. */
export const OBJECT_META_ITEM_FIELDS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries(OBJECT_META_OPENAPI.properties ?? {}).flatMap(([name, p]) =>
    p.type === 'array' && p.items?.properties ? [[name, new Set(Object.keys(p.items.properties))] as const] : [],
  ),
);
