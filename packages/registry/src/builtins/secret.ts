import { type FieldError, fieldErrors, getOwn, OMIT_VALUE, setOwn } from '@kapi/apimachinery';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import { omitEmpty } from '../kube-extensions.ts';
import type { ResourceObject } from '../resource-definition.ts';
import { AGE_COLUMN } from '../table/table-convertor.ts';
import { isConfigMapKey, keyPath, MAX_SECRET_SIZE, stringEntries } from './config-key.ts';
import { decodeGoBase64, illegalBase64Message } from './go-base64.ts';
import { validateImmutableData } from './immutable.ts';

const secretSchema = z.object({
  /** base64, as Go's []byte is encoded in JSON. */
  data: omitEmpty(z.record(z.string(), z.string())).optional(),
  /** Write-only: merged into data and never stored. */
  stringData: omitEmpty(z.record(z.string(), z.string())).optional(),
  type: z.string().default('Opaque'),
  immutable: z.boolean().optional(),
});

/** The stored object: apiVersion, kind, ObjectMeta and the schema's fields. */
export type Secret = ResourceObject<typeof secretSchema>;

/** Keys each built-in secret type requires in data (ValidateSecret's switch on type). */
const REQUIRED_KEYS: Record<string, { keys: readonly string[]; any?: boolean; nonEmpty?: boolean }> = {
  'kubernetes.io/dockercfg': { keys: ['.dockercfg'] },
  'kubernetes.io/dockerconfigjson': { keys: ['.dockerconfigjson'] },
  // username or password may be empty, but one of them must be there.
  'kubernetes.io/basic-auth': { keys: ['username', 'password'], any: true },
  'kubernetes.io/ssh-auth': { keys: ['ssh-privatekey'], nonEmpty: true },
  'kubernetes.io/tls': { keys: ['tls.crt', 'tls.key'] },
};
const SERVICE_ACCOUNT_TOKEN = 'kubernetes.io/service-account-token';
const SERVICE_ACCOUNT_NAME_KEY = 'kubernetes.io/service-account.name';

/**
 * The v1→internal conversion of a Secret: stringData values overwrite data keys (base64-encoded), then stringData
 * is dropped. Left alone when stringData is not a map of strings, so the schema reports it.
 */
function mergeStringData(obj: Secret): void {
  const sd = (obj as Record<string, unknown>).stringData;
  if (sd === undefined) return;
  if (typeof sd !== 'object' || sd === null || Array.isArray(sd) || !Object.values(sd).every((v) => typeof v === 'string')) return;
  const data = typeof obj.data === 'object' && obj.data !== null && !Array.isArray(obj.data) ? obj.data : {};
  for (const [k, v] of Object.entries(sd as Record<string, string>)) setOwn(data, k, Buffer.from(v, 'utf8').toString('base64'));
  obj.data = data;
  delete obj.stringData;
}

/** ValidateSecret beside ObjectMeta: keys, base64 values, 1 MiB in all, and what each type requires. */
function validateSecret(s: Secret): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  const lengths = new Map<string, number>();
  const entries = stringEntries(s.data);
  for (const [key, value] of entries) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(keyPath('data', key), key, msg));
    const decoded = decodeGoBase64(value);
    // kube-apiserver fails such a body while decoding []byte; kapi reports it as a field of the 422.
    if (!decoded.ok) errs.push(fieldErrors.invalid(keyPath('data', key), OMIT_VALUE, illegalBase64Message(decoded.offset)));
    else {
      total += decoded.length;
      lengths.set(key, decoded.length);
    }
  }
  if (total > MAX_SECRET_SIZE) errs.push(fieldErrors.tooLong('data', MAX_SECRET_SIZE));
  if (s.type === SERVICE_ACCOUNT_TOKEN) {
    if (!s.metadata.annotations?.[SERVICE_ACCOUNT_NAME_KEY])
      errs.push(fieldErrors.required(keyPath('metadata.annotations', SERVICE_ACCOUNT_NAME_KEY), ''));
    return errs;
  }
  // An own entry only: a type named "constructor" or "__proto__" is just an unknown (opaque) type.
  const rule = getOwn(REQUIRED_KEYS, s.type ?? '');
  if (!rule) return errs;
  const present = new Set(entries.map(([k]) => k));
  const has = (k: string): boolean => present.has(k) && (!rule.nonEmpty || (lengths.get(k) ?? 0) > 0);
  const missing = rule.keys.filter((k) => !has(k));
  if (rule.any ? missing.length === rule.keys.length : missing.length > 0)
    for (const k of missing) errs.push(fieldErrors.required(keyPath('data', k), ''));
  return errs;
}

/** core/v1 Secret, with pkg/registry/core/secret's strategy: type defaults to Opaque and may not change. */
export const Secret = defineResource({
  group: '',
  kind: 'Secret',
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.type', description: 'The type of the secret' },
    {
      name: 'Data',
      type: 'integer',
      jsonPath: '.data',
      description: 'Number of data in secret',
      value: (o) => Object.keys((o as { data?: object }).data ?? {}).length,
    },
    AGE_COLUMN,
  ],
  plural: 'secrets',
  namespaced: true,
  versions: [{ name: 'v1', schema: secretSchema }],
  selectableFields: [{ jsonPath: '.type' }],
  strategy: {
    prepareForCreate: (_ctx, obj) => mergeStringData(obj),
    prepareForUpdate: (_ctx, obj) => mergeStringData(obj),
    validate: (_ctx, obj) => validateSecret(obj),
    // Core kinds warn of no finalizer names (only custom resources do).
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    validateUpdate(_ctx, obj, old) {
      const errs: FieldError[] = [];
      // The default applies before this hook in kube; here an unset type means the default.
      if ((obj.type ?? 'Opaque') !== old.type) errs.push(fieldErrors.invalid('type', obj.type, 'field is immutable'));
      // stringData was merged into data already, so data alone is compared.
      errs.push(...validateImmutableData(obj, old, ['data']), ...validateSecret(obj));
      return errs;
    },
    allowUnconditionalUpdate: () => true,
  },
});
