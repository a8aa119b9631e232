import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import { atomicList, atomicMap, listMap, omitEmpty } from '../kube-extensions.ts';
import type { ResourceObject } from '../resource-definition.ts';
import { AGE_COLUMN } from '../table/table-convertor.ts';
import { objectReferenceSchema } from './object-reference.ts';

const serviceAccountSchema = z.object({
  // kube: +patchMergeKey=name +patchStrategy=merge +listType=map +listMapKey=name.
  secrets: omitEmpty(listMap(z.array(objectReferenceSchema), ['name'])).optional(),
  // kube: +listType=atomic of LocalObjectReference (+structType=atomic).
  imagePullSecrets: omitEmpty(atomicList(z.array(atomicMap(z.object({ name: z.string().optional() }))))).optional(),
  automountServiceAccountToken: z.boolean().optional(),
});

/** The stored object: apiVersion, kind, ObjectMeta and the schema's fields. */
export type ServiceAccount = ResourceObject<typeof serviceAccountSchema>;

/** core/v1 ServiceAccount, with pkg/registry/core/serviceaccount's strategy: no generation, unconditional updates. */
export const ServiceAccount = defineResource({
  group: '',
  kind: 'ServiceAccount',
  printerColumns: [
    {
      name: 'Secrets',
      type: 'integer',
      jsonPath: '.secrets',
      description: 'Number of secrets of the service account',
      value: (o) => ((o as ServiceAccount).secrets ?? []).length,
    },
    AGE_COLUMN,
  ],
  plural: 'serviceaccounts',
  shortNames: ['sa'],
  namespaced: true,
  versions: [{ name: 'v1', schema: serviceAccountSchema }],
  strategy: {
    prepareForCreate() {},
    prepareForUpdate() {},
    validate: () => [],
    // Core kinds warn of no finalizer names (only custom resources do).
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    validateUpdate: () => [],
    allowUnconditionalUpdate: () => true,
  },
});
