import { type FieldError, fieldErrors, OMIT_VALUE } from '@kapi/apimachinery';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import { omitEmpty } from '../kube-extensions.ts';
import type { ResourceObject } from '../resource-definition.ts';
import { AGE_COLUMN } from '../table/table-convertor.ts';
import { isConfigMapKey, keyPath, MAX_SECRET_SIZE, stringEntries } from './config-key.ts';
import { decodeGoBase64, illegalBase64Message } from './go-base64.ts';
import { validateImmutableData } from './immutable.ts';

export const configMapSchema = z.object({
  data: omitEmpty(z.record(z.string(), z.string())).optional(),
  /** base64, as Go's []byte is encoded in JSON. */
  binaryData: omitEmpty(z.record(z.string(), z.string())).optional(),
  immutable: z.boolean().optional(),
});

/** The stored object: apiVersion, kind, ObjectMeta and the schema's fields. */
export type ConfigMap = ResourceObject<typeof configMapSchema>;

/** ValidateConfigMap beside ObjectMeta: key names, no key in both maps, base64 binaryData, 1 MiB in all. */
function validateConfigMap(cm: ConfigMap): FieldError[] {
  const errs: FieldError[] = [];
  const binary = new Set(stringEntries(cm.binaryData).map(([k]) => k));
  let total = 0;
  for (const [key, value] of stringEntries(cm.data)) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(keyPath('data', key), key, msg));
    if (binary.has(key)) errs.push(fieldErrors.invalid(keyPath('data', key), key, 'duplicate of key present in binaryData'));
    total += Buffer.byteLength(value);
  }
  for (const [key, value] of stringEntries(cm.binaryData)) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(keyPath('binaryData', key), key, msg));
    const decoded = decodeGoBase64(value);
    // kube-apiserver fails such a body while decoding []byte; kapi reports it as a field of the 422.
    if (!decoded.ok) errs.push(fieldErrors.invalid(keyPath('binaryData', key), OMIT_VALUE, illegalBase64Message(decoded.offset)));
    else total += decoded.length;
  }
  // The whole object is at fault: kube passes an empty path.
  if (total > MAX_SECRET_SIZE) errs.push(fieldErrors.tooLong('', MAX_SECRET_SIZE));
  return errs;
}

/** core/v1 ConfigMap, with pkg/registry/core/configmap's strategy: no generation, unconditional updates allowed. */
export const ConfigMap = defineResource({
  group: '',
  kind: 'ConfigMap',
  printerColumns: [
    {
      name: 'Data',
      type: 'integer',
      jsonPath: '.data',
      description: 'Number of data in configmap',
      // kube's printer counts data and binaryData together.
      value: (o) => Object.keys((o as ConfigMap).data ?? {}).length + Object.keys((o as ConfigMap).binaryData ?? {}).length,
    },
    AGE_COLUMN,
  ],
  plural: 'configmaps',
  shortNames: ['cm'],
  namespaced: true,
  versions: [{ name: 'v1', schema: configMapSchema }],
  strategy: {
    prepareForCreate() {},
    prepareForUpdate() {},
    validate: (_ctx, obj) => validateConfigMap(obj),
    // Core kinds warn of no finalizer names (only custom resources do).
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    validateUpdate: (_ctx, obj, old) => [...validateImmutableData(obj, old, ['data', 'binaryData']), ...validateConfigMap(obj)],
    allowUnconditionalUpdate: () => true,
  },
});
