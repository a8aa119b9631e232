import { readFileSync } from 'node:fs';
import { ALL_AUTHENTICATED } from '@kapi/authn';
import { goJSONSyntaxError } from './go-json.ts';

/** The group and versions of kube's ABAC policy kind (pkg/apis/abac). */
export const ABAC_GROUP = 'abac.authorization.kubernetes.io';
export const ABAC_V1BETA1 = `${ABAC_GROUP}/v1beta1`;
export const ABAC_V0 = `${ABAC_GROUP}/v0`;

/**
 * kube's internal abac.PolicySpec: one rule. Strings match exactly, `*` matches anything; `nonResourcePath` may end in
 * `*` (a prefix). An empty string matches only an empty attribute (e.g. `namespace: ""` only cluster-scoped requests).
 */
export interface ABACPolicy {
  readonly user: string;
  readonly group: string;
  /** true: only get, list and watch. */
  readonly readonly: boolean;
  readonly apiGroup: string;
  readonly resource: string;
  readonly namespace: string;
  readonly nonResourcePath: string;
}

/** kube's policyLoadError, worded as kube words it. */
export class ABACPolicyLoadError extends Error {
  constructor(path: string, line: number, data: string | undefined, cause: string) {
    super(line >= 0 ? `error reading policy file ${path}, line ${line}: ${data}: ${cause}` : `error reading policy file ${path}: ${cause}`);
    this.name = 'ABACPolicyLoadError';
  }
}

/** The policies of a file read as kube's abac.NewFromFile does; throws {@link ABACPolicyLoadError}. */
export function loadABACPolicyFile(path: string): ABACPolicy[] {
  return parseABACPolicies(readFileSync(path, 'utf8'), path);
}

/** bufio.Scanner's MaxScanTokenSize: a longer line ends the scan with "token too long". */
const MAX_LINE_BYTES = 64 * 1024;

/**
 * kube's abac.NewFromFile on the text of a policy file named `path`: one JSON object per line; blank lines and lines
 * whose first non-space character is `#` are skipped; a `abac.authorization.kubernetes.io/v1beta1` Policy is read as
 * it is, an unversioned line (no apiVersion and kind, kube's "v0") is converted as kube converts it.
 */
export function parseABACPolicies(text: string, path: string): ABACPolicy[] {
  const policies: ABACPolicy[] = [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, '');
    if (Buffer.byteLength(line) >= MAX_LINE_BYTES) throw new ABACPolicyLoadError(path, -1, undefined, 'bufio.Scanner: token too long');
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    try {
      policies.push(decodePolicy(line));
    } catch (err) {
      throw new ABACPolicyLoadError(path, i + 1, line, (err as Error).message);
    }
  }
  return policies;
}

type JSONType = 'string' | 'number' | 'bool' | 'array' | 'object' | 'null';

function jsonType(v: unknown): JSONType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v as 'string' | 'number' | 'object';
}

/** Go's encoding/json type error, e.g. `json: cannot unmarshal number into Go struct field PolicySpec.spec.user of type string`. */
function typeError(got: unknown, field: string, goType: string): Error {
  return new Error(`json: cannot unmarshal ${jsonType(got)} into Go struct field ${field} of type ${goType}`);
}

/** Reads the fields of `obj` as Go's encoding/json fills a struct: exact (case-sensitive) names, null leaves the zero value. */
function fields(obj: Record<string, unknown>, struct: string, names: readonly string[]): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const name of names) {
    const v = obj[name];
    const goType = name === 'readonly' ? 'bool' : 'string';
    if (v === undefined || v === null) out[name] = goType === 'bool' ? false : '';
    else if ((goType === 'bool' && typeof v !== 'boolean') || (goType === 'string' && typeof v !== 'string'))
      throw typeError(v, `${struct}.${name}`, goType);
    else out[name] = v as string | boolean;
  }
  return out;
}

const V1BETA1_FIELDS = ['user', 'group', 'readonly', 'apiGroup', 'resource', 'namespace', 'nonResourcePath'] as const;
const V0_FIELDS = ['user', 'group', 'readonly', 'resource', 'namespace'] as const;

function decodePolicy(line: string): ABACPolicy {
  const syntax = goJSONSyntaxError(line);
  if (syntax) throw new Error(`couldn't get version/kind; json parse error: ${syntax}`);
  const parsed: unknown = JSON.parse(line);
  // Go's json.Unmarshal of null into a struct changes nothing: kube reads a `null` line as an empty v0 policy.
  const value = parsed === null ? {} : parsed;
  if (typeof value !== 'object' || Array.isArray(value))
    throw new Error(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(value)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  const obj = value as Record<string, unknown>;
  for (const meta of ['apiVersion', 'kind']) {
    const v = obj[meta];
    if (v !== undefined && v !== null && typeof v !== 'string')
      throw new Error(`couldn't get version/kind; json parse error: ${typeError(v, `.${meta}`, 'string').message}`);
  }
  // A missing apiVersion or kind is taken from the type decoded into (kube's fallback decodes into a v0 Policy).
  const apiVersion = typeof obj.apiVersion === 'string' && obj.apiVersion !== '' ? obj.apiVersion : ABAC_V0;
  const kind = typeof obj.kind === 'string' && obj.kind !== '' ? obj.kind : 'Policy';
  if (kind !== 'Policy' || (apiVersion !== ABAC_V1BETA1 && apiVersion !== ABAC_V0))
    throw new Error(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}`);
  return apiVersion === ABAC_V1BETA1 ? fromV1beta1(obj) : fromV0(obj);
}

/** kube's v1beta1 → internal conversion: a `*` user or group means every authenticated subject. */
function fromV1beta1(obj: Record<string, unknown>): ABACPolicy {
  const spec = obj.spec ?? {};
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) throw typeError(spec, 'Policy.spec', 'v1beta1.PolicySpec');
  const f = fields(spec as Record<string, unknown>, 'PolicySpec.spec', V1BETA1_FIELDS);
  const p = {
    user: f.user as string,
    group: f.group as string,
    readonly: f.readonly as boolean,
    apiGroup: f.apiGroup as string,
    resource: f.resource as string,
    namespace: f.namespace as string,
    nonResourcePath: f.nonResourcePath as string,
  };
  if (p.user === '*' || p.group === '*') return { ...p, user: '', group: ALL_AUTHENTICATED };
  return p;
}

/**
 * kube's v0 → internal conversion: no user and group, or a `*` one, means every authenticated subject; an empty
 * namespace or resource means all; every API group; neither namespace nor resource also allows every non-resource path.
 */
function fromV0(obj: Record<string, unknown>): ABACPolicy {
  const f = fields(obj, 'Policy', V0_FIELDS);
  const user = f.user as string;
  const group = f.group as string;
  const namespace = f.namespace as string;
  const resource = f.resource as string;
  const everyone = (user === '' && group === '') || user === '*' || group === '*';
  return {
    user: user === '*' || group === '*' ? '' : user,
    group: everyone ? ALL_AUTHENTICATED : group,
    readonly: f.readonly as boolean,
    apiGroup: '*',
    resource: resource === '' ? '*' : resource,
    namespace: namespace === '' ? '*' : namespace,
    nonResourcePath: namespace === '' && resource === '' ? '*' : '',
  };
}
