import { decodePluginConfig, type PluginConfigKind } from '../../config/plugin-config.ts';
import type { LimitedResource } from './quota-check.ts';

/** The ResourceQuota plugin's configuration (kube's ResourceQuotaConfiguration). */
export interface ResourceQuotaConfiguration {
  readonly limitedResources: readonly LimitedResource[];
}

/** The apiVersion/kind pairs kube's ResourceQuota plugin reads its configuration as. */
export const RESOURCE_QUOTA_CONFIGURATION_KINDS: readonly PluginConfigKind[] = [
  { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration' },
  { apiVersion: 'resourcequota.admission.k8s.io/v1beta1', kind: 'Configuration' },
];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/**
 * Reads the plugin's configuration (an AdmissionConfiguration's `configuration` for ResourceQuota, as JSON/YAML
 * decoded): `limitedResources` of apiGroup, resource and matchContains. Absent: no limited resources. Throws kube's
 * decoder errors for another kind, and its validation's (`limitedResources[0].resource: Required value`).
 */
export function parseResourceQuotaConfiguration(config: unknown): ResourceQuotaConfiguration {
  const decoded = decodePluginConfig<Record<string, unknown>>(config, RESOURCE_QUOTA_CONFIGURATION_KINDS);
  if (!decoded) return { limitedResources: [] };
  const list = decoded.limitedResources ?? [];
  if (!Array.isArray(list)) throw new Error('limitedResources: Invalid value: must be a list');
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
