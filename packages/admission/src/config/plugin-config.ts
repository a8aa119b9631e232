/** One apiVersion and kind a plugin's configuration may be written in. */
export interface PluginConfigKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/**
 * Checks a decoded configuration object's apiVersion and kind as kube's universal decoder does, with its errors:
 * `Object 'Kind' is missing in '<json>'`, `Object 'apiVersion' is missing in '<json>'`, and `no kind "<kind>" is
 * registered for version "<apiVersion>" in scheme "<scheme>"` for any pair not in `accepted`.
 */
export function checkTypeMeta(obj: Record<string, unknown>, accepted: readonly PluginConfigKind[], scheme: string): void {
  const json = JSON.stringify(obj);
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  if (kind === '') throw new Error(`Object 'Kind' is missing in '${json}'`);
  if (apiVersion === '') throw new Error(`Object 'apiVersion' is missing in '${json}'`);
  if (!accepted.some((a) => a.apiVersion === apiVersion && a.kind === kind)) {
    throw new Error(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "${scheme}"`);
  }
}

/**
 * A plugin factory's configuration (what AdmissionPluginRegistry hands it: an object, or undefined when the
 * AdmissionConfiguration has none for the plugin) checked to be one of the `accepted` kinds, as kube's plugins decode
 * theirs (e.g. ResourceQuota's apiserver.config.k8s.io/v1 ResourceQuotaConfiguration); undefined stays undefined, for
 * the plugin's defaults. Fields are not checked beyond that: unknown ones are ignored, as kube's decoder does.
 *
 * @example
 * registry.register('ResourceQuota', (raw) => {
 *   const config = decodePluginConfig<QuotaConfig>(raw, [{ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration' }]);
 *   return new ResourceQuotaAdmission({ limitedResources: config?.limitedResources ?? [], ... });
 * });
 */
export function decodePluginConfig<T extends object>(
  config: unknown,
  accepted: readonly PluginConfigKind[],
  scheme = 'admission plugin config',
): T | undefined {
  if (config === undefined || config === null) return undefined;
  if (typeof config !== 'object' || Array.isArray(config)) {
    throw new Error(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(config) ? 'array' : typeof config === 'boolean' ? 'bool' : typeof config} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  checkTypeMeta(config as Record<string, unknown>, accepted, scheme);
  return config as T;
}
