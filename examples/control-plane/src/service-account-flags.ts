import type { FlagValues } from './flag-values.ts';
import { parseGoDuration } from './token-flags.ts';

/** kube-apiserver's --service-account-* flags, as node:util parseArgs options. */
export const SERVICE_ACCOUNT_FLAGS = {
  'service-account-issuer': { type: 'string' },
  'service-account-signing-key-file': { type: 'string' },
  'service-account-key-file': { type: 'string', multiple: true },
  'service-account-max-token-expiration': { type: 'string' },
} as const;

export const SERVICE_ACCOUNT_USAGE =
  '[--service-account-issuer URL] [--service-account-signing-key-file PEM] [--service-account-key-file PEM]… [--service-account-max-token-expiration 24h]';

export type ServiceAccountFlagValues = FlagValues<typeof SERVICE_ACCOUNT_FLAGS>;

/** The control plane's service-account options (see ControlPlaneOptions). */
export interface ServiceAccountOptions {
  /** kube's --service-account-issuer. Default https://kubernetes.default.svc.cluster.local. */
  serviceAccountIssuer?: string;
  /** kube's --service-account-signing-key-file (PEM private key). Default `<dataDir>/sa.key`, made the first time. */
  serviceAccountSigningKeyFile?: string;
  /** kube's --service-account-key-file: more public (or private) key PEM files whose tokens are still accepted (rotation). */
  serviceAccountKeyFiles?: readonly string[];
  /** kube's --service-account-max-token-expiration, in seconds: longer TokenRequests are shortened to it. */
  serviceAccountMaxTokenExpirationSeconds?: number;
  /** Also accept legacy Secret-based tokens (kubernetes.io/service-account-token Secrets). Default false. */
  serviceAccountLegacyTokens?: boolean;
}

/** The options the flags ask for, checked as kube-apiserver does (the issuer is a URL or a name without ':'; 10 minutes at least). */
export function serviceAccountOptionsFromFlags(flags: ServiceAccountFlagValues): ServiceAccountOptions {
  const out: ServiceAccountOptions = {};
  const issuer = flags['service-account-issuer'];
  if (issuer !== undefined) {
    // kube: a URL, or a string without ':' (which is not a URL).
    if (issuer === '' || (issuer.includes(':') && URL.parse(issuer) === null))
      throw new Error(`--service-account-issuer ${JSON.stringify(issuer)} contained a ':' but was not a valid URL`);
    out.serviceAccountIssuer = issuer;
  }
  const signing = flags['service-account-signing-key-file'];
  if (signing) out.serviceAccountSigningKeyFile = signing;
  const keys = flags['service-account-key-file'];
  if (keys?.length) out.serviceAccountKeyFiles = [...keys];
  const max = flags['service-account-max-token-expiration'];
  if (max !== undefined) {
    const seconds = Math.floor(parseGoDuration(max) / 1000);
    if (seconds < 600) throw new Error('--service-account-max-token-expiration must be at least 10 minutes (600s)');
    out.serviceAccountMaxTokenExpirationSeconds = seconds;
  }
  return out;
}
