import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { checkTypeMeta } from './plugin-config.ts';

/** One plugin's settings in an AdmissionConfiguration (kube's AdmissionPluginConfiguration). */
export interface AdmissionPluginConfiguration {
  /** The registered plugin's name. */
  readonly name: string;
  /** A file holding the plugin's configuration; made absolute (against the configuration file's directory) on reading. */
  readonly path?: string;
  /** The plugin's configuration inline; used instead of `path` when both are given. */
  readonly configuration?: unknown;
}

/** kube's AdmissionConfiguration (--admission-control-config-file), apiserver.config.k8s.io/v1 or apiserver.k8s.io/v1alpha1. */
export interface AdmissionConfiguration {
  readonly apiVersion: string;
  readonly kind: 'AdmissionConfiguration';
  readonly plugins: readonly AdmissionPluginConfiguration[];
}

/** The versions kube's admission config scheme knows AdmissionConfiguration in. */
export const ADMISSION_CONFIGURATION_VERSIONS: readonly string[] = ['apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1'];

const ACCEPTED = ADMISSION_CONFIGURATION_VERSIONS.map((apiVersion) => ({ apiVersion, kind: 'AdmissionConfiguration' }));

/** The scheme name kube's "no kind … is registered" error names (the admission options' config scheme). */
const SCHEME = 'k8s.io/apiserver/pkg/server/options/admission.go';

/**
 * Decodes an AdmissionConfiguration from YAML or JSON text as kube's universal decoder does (unknown fields ignored),
 * with kube's errors for a missing apiVersion or kind and for a kind not registered in that version. Relative plugin
 * `path`s are made absolute against `baseDir` (default the working directory), as kube does against the file's
 * directory.
 */
export function parseAdmissionConfiguration(text: string, baseDir = '.'): AdmissionConfiguration {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw new Error(`error converting YAML to JSON: yaml: ${(err as Error).message}`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new Error(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${goType(data)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  const obj = data as Record<string, unknown>;
  checkTypeMeta(obj, ACCEPTED, SCHEME);
  const apiVersion = obj.apiVersion as string;
  const plugins = obj.plugins ?? [];
  if (!Array.isArray(plugins)) throw unmarshalError(plugins, 'AdmissionConfiguration.plugins', '[]v1.AdmissionPluginConfiguration');
  const base = resolve(baseDir);
  return {
    apiVersion,
    kind: 'AdmissionConfiguration',
    plugins: plugins.map((p: unknown): AdmissionPluginConfiguration => {
      if (p === null) return { name: '' };
      if (typeof p !== 'object' || Array.isArray(p))
        throw unmarshalError(p, 'AdmissionConfiguration.plugins', 'v1.AdmissionPluginConfiguration');
      const fields = p as Record<string, unknown>;
      // JSON null decodes to Go's zero value.
      const name = fields.name ?? '';
      const path = fields.path ?? '';
      const configuration = fields.configuration;
      if (typeof name !== 'string') throw unmarshalError(name, 'AdmissionConfiguration.plugins.name', 'string');
      if (typeof path !== 'string') throw unmarshalError(path, 'AdmissionConfiguration.plugins.path', 'string');
      return {
        name,
        ...(path !== '' ? { path: isAbsolute(path) ? path : join(base, path) } : {}),
        ...(configuration !== undefined && configuration !== null ? { configuration } : {}),
      };
    }),
  };
}

/**
 * Reads kube's --admission-control-config-file: kube's "unable to read admission control configuration from" when it
 * cannot be read; plugin paths relative to the file's directory.
 */
export function readAdmissionConfiguration(path: string): AdmissionConfiguration {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`unable to read admission control configuration from "${path}" [${goFileError('open', path, err)}]`);
  }
  return parseAdmissionConfiguration(text, dirname(path));
}

/**
 * The configuration of the plugin called `name` (kube's ConfigFor): the first entry of that name's inline
 * `configuration`, else its file (YAML or JSON) parsed, else undefined. A plugin's file is read only when asked for,
 * as kube reads only the enabled plugins' files.
 */
export function pluginConfigFor(config: AdmissionConfiguration | undefined, name: string): unknown {
  const entry = config?.plugins.find((p) => p.name === name);
  if (!entry) return undefined;
  if (entry.configuration !== undefined) return entry.configuration;
  if (entry.path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(entry.path, 'utf8');
  } catch (err) {
    throw new Error(`couldn't open admission plugin configuration ${entry.path}: ${goFileError('open', entry.path, err)}`);
  }
  try {
    return parseYaml(text) ?? undefined;
  } catch (err) {
    throw new Error(`admission plugin configuration ${entry.path}: error converting YAML to JSON: yaml: ${(err as Error).message}`);
  }
}

/** Go's *PathError text (`open <path>: no such file or directory`) for Node's common file errors. */
function goFileError(op: string, path: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'no such file or directory'
      : code === 'EACCES'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'is a directory'
          : (err as Error).message;
  return code === 'EISDIR' ? `read ${path}: ${why}` : `${op} ${path}: ${why}`;
}

function goType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

function unmarshalError(v: unknown, field: string, type: string): Error {
  return new Error(`json: cannot unmarshal ${goType(v)} into Go struct field ${field} of type ${type}`);
}
