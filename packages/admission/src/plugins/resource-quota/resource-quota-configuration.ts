import type { LimitedResource } from './quota-check.ts';

/** The ResourceQuota plugin's configuration (kube's ResourceQuotaConfiguration). */
export interface ResourceQuotaConfiguration {
  readonly limitedResources: readonly LimitedResource[];
}

/** The apiVersion/kind pairs kube's ResourceQuota plugin reads its configuration file as. */
const KNOWN = new Set(['apiserver.config.k8s.io/v1/ResourceQuotaConfiguration', 'resourcequota.admission.k8s.io/v1beta1/Configuration']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/**
 * Reads the plugin's configuration (an AdmissionConfiguration's `configuration` for ResourceQuota, as JSON/YAML
 * decoded): `limitedResources` of apiGroup, resource and matchContains. Absent: no limited resources. Throws with
 * kube's validation message (`limitedResources[0].resource: Required value`) or the decoding problem.
 */
export function parseResourceQuotaConfiguration(config: unknown): ResourceQuotaConfiguration {
  if (config === undefined || config === null) return { limitedResources: [] };
  if (!isObject(config)) throw new Error('ResourceQuota configuration must be an object');
  const gvk = `${String(config.apiVersion)}/${String(config.kind)}`;
  if (!KNOWN.has(gvk))
    throw new Error(
      `ResourceQuota configuration: unsupported apiVersion/kind ${JSON.stringify(config.apiVersion)}/${JSON.stringify(config.kind)}`,
    );
  const list = config.limitedResources ?? [];
  if (!Array.isArray(list)) throw new Error('ResourceQuota configuration: limitedResources must be a list');
  const errs: string[] = [];
  const out: LimitedResource[] = [];
  for (const [i, item] of list.entries()) {
    const path = `limitedResources[${i}]`;
    if (!isObject(item)) {
      errs.push(`${path}: Invalid value: must be an object`);
      continue;
    }
    const { apiGroup = '', resource = '', matchContains = [] } = item;
    if (typeof apiGroup !== 'string') errs.push(`${path}.apiGroup: Invalid value: must be a string`);
    if (typeof resource !== 'string') errs.push(`${path}.resource: Invalid value: must be a string`);
    else if (resource === '') errs.push(`${path}.resource: Required value`);
    if (!strings(matchContains)) errs.push(`${path}.matchContains: Invalid value: must be a list of strings`);
    if (typeof apiGroup === 'string' && typeof resource === 'string' && strings(matchContains))
      out.push({ apiGroup, resource, matchContains });
  }
  if (errs.length) throw new Error(errs.length === 1 ? (errs[0] as string) : `[${errs.join(', ')}]`);
  return { limitedResources: out };
}
