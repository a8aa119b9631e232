/** k8s.io/apimachinery's IsConfigMapKey: the keys of ConfigMap data/binaryData and Secret data (they become file names). */

const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_MAP_KEY_RE = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);
const CONFIG_MAP_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const DNS1123_SUBDOMAIN_MAX = 253;

/** Messages as validation.IsConfigMapKey words them; empty when the key is valid. */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(key) > DNS1123_SUBDOMAIN_MAX) errs.push(`must be no more than ${DNS1123_SUBDOMAIN_MAX} characters`);
  if (!CONFIG_MAP_KEY_RE.test(key))
    errs.push(
      `${CONFIG_MAP_KEY_MSG} (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '${CONFIG_MAP_KEY_FMT}')`,
    );
  // hasChDirPrefix: a key is a file name in a volume, so it may not climb out of it.
  if (key === '.') errs.push(`must not be '.'`);
  else if (key === '..') errs.push(`must not be '..'`);
  else if (key.startsWith('..')) errs.push(`must not start with '..'`);
  return errs;
}

/** core.MaxSecretSize: the most a ConfigMap's or Secret's values may hold together, in bytes. */
export const MAX_SECRET_SIZE = 1024 * 1024;

/** FieldPath.Key: `data[key]`. */
export const keyPath = (field: string, key: string): string => `${field}[${key}]`;

/**
 * The string entries of a map field as the hooks see it: they run on the body before the schema's verdict, so a
 * malformed field yields nothing here and the schema reports it.
 */
export function stringEntries(v: unknown): [string, string][] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return [];
  return Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string');
}
