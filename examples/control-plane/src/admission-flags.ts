import type { FlagValues } from './flag-values.ts';

/** kube-apiserver's admission flags, as node:util parseArgs options, plus where webhook Services are reached. */
export const ADMISSION_FLAGS = {
  'enable-admission-plugins': { type: 'string' },
  'disable-admission-plugins': { type: 'string' },
  'admission-control-config-file': { type: 'string' },
  // A generic control plane serves no Services: `namespace/name[:port]=https://host:port` says where one is.
  'admission-webhook-service': { type: 'string', multiple: true },
} as const;

export const ADMISSION_USAGE =
  '[--enable-admission-plugins A,B] [--disable-admission-plugins A,B] [--admission-control-config-file FILE] [--admission-webhook-service ns/name[:port]=https://host:port ...]';

export type AdmissionFlagValues = FlagValues<typeof ADMISSION_FLAGS>;

/** The control plane's admission options (see ControlPlaneOptions). */
export interface AdmissionFlagOptions {
  /** kube's --enable-admission-plugins. */
  enableAdmissionPlugins?: readonly string[];
  /** kube's --disable-admission-plugins. */
  disableAdmissionPlugins?: readonly string[];
  /** kube's --admission-control-config-file. */
  admissionControlConfigFile?: string;
  /** Where webhooks' `clientConfig.service` is reached: `namespace/name[:port]` → URL. */
  admissionWebhookServices?: Readonly<Record<string, string>>;
}

/** kube's string-slice flag: comma-separated, each trimmed, empty ones dropped. */
function names(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The options the flags ask for; a malformed --admission-webhook-service is an error naming it. */
export function admissionOptionsFromFlags(flags: AdmissionFlagValues): AdmissionFlagOptions {
  const out: AdmissionFlagOptions = {};
  const enable = flags['enable-admission-plugins'];
  if (enable !== undefined) out.enableAdmissionPlugins = names(enable);
  const disable = flags['disable-admission-plugins'];
  if (disable !== undefined) out.disableAdmissionPlugins = names(disable);
  const config = flags['admission-control-config-file'];
  if (config) out.admissionControlConfigFile = config;
  const services = flags['admission-webhook-service'];
  if (services?.length) {
    const map: Record<string, string> = {};
    for (const s of services) {
      const eq = s.indexOf('=');
      const key = eq > 0 ? s.slice(0, eq) : '';
      const url = eq > 0 ? URL.parse(s.slice(eq + 1)) : null;
      if (!/^[^/]+\/[^/:]+(:\d+)?$/.test(key) || url?.protocol !== 'https:')
        throw new Error(`--admission-webhook-service must be namespace/name[:port]=https://host:port, not ${JSON.stringify(s)}`);
      map[key] = url.href;
    }
    out.admissionWebhookServices = map;
  }
  return out;
}
