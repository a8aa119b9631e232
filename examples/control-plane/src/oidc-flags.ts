import { readFileSync } from 'node:fs';
import { type AuthenticationConfigurationOptions, jwtOptionsFromConfiguration, type OIDCOptions } from '@kapi/authn';
import type { FlagValues } from './flag-values.ts';

/** kube-apiserver's --oidc-* flags, as node:util parseArgs options. */
export const OIDC_FLAGS = {
  'oidc-issuer-url': { type: 'string' },
  'oidc-client-id': { type: 'string' },
  'oidc-ca-file': { type: 'string' },
  'oidc-username-claim': { type: 'string' },
  'oidc-username-prefix': { type: 'string' },
  'oidc-groups-claim': { type: 'string' },
  'oidc-groups-prefix': { type: 'string' },
  'oidc-required-claim': { type: 'string', multiple: true },
  'oidc-signing-algs': { type: 'string' },
  'authentication-config': { type: 'string' },
} as const;

export const OIDC_USAGE =
  '[--authentication-config FILE | --oidc-issuer-url https://… --oidc-client-id ID [--oidc-ca-file PEM] [--oidc-username-claim sub] [--oidc-username-prefix P|-] [--oidc-groups-claim C] [--oidc-groups-prefix P] [--oidc-required-claim k=v]… [--oidc-signing-algs RS256,…]]';

export type OIDCFlagValues = FlagValues<typeof OIDC_FLAGS>;

/**
 * The JWT issuers the flags ask for: those of kube's structured --authentication-config file (YAML or JSON; its jwt
 * part, see jwtOptionsFromConfiguration), or the one of the --oidc-* flags; the two are mutually exclusive, as in
 * kube-apiserver. None without either.
 */
export async function jwtOptionsFromFlags(flags: OIDCFlagValues, options: AuthenticationConfigurationOptions = {}): Promise<OIDCOptions[]> {
  const path = flags['authentication-config'];
  if (path === undefined) {
    const oidc = oidcOptionsFromFlags(flags);
    return oidc ? [oidc] : [];
  }
  if (Object.entries(flags).some(([name, v]) => name.startsWith('oidc-') && v !== undefined)) {
    throw new Error('authentication-config file and oidc-* flags are mutually exclusive');
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`failed to read --authentication-config: ${(err as Error).message}`);
  }
  const { decodeYAML } = await import('@kapi/server-core');
  let config: unknown;
  try {
    config = decodeYAML(text);
  } catch (err) {
    throw new Error(`failed to decode --authentication-config ${path}: ${(err as Error).message}`);
  }
  return jwtOptionsFromConfiguration(config, options);
}

/**
 * The OIDC authenticator options the flags ask for, checked as kube-apiserver checks them (issuer URL and client id
 * go together; a required claim is key=value); undefined without --oidc-issuer-url. Reads the CA file.
 */
export function oidcOptionsFromFlags(flags: OIDCFlagValues): OIDCOptions | undefined {
  const issuerURL = flags['oidc-issuer-url'] ?? '';
  const clientID = flags['oidc-client-id'] ?? '';
  if ((issuerURL === '') !== (clientID === '')) throw new Error('oidc-issuer-url and oidc-client-id must be specified together');
  if (issuerURL === '') {
    const stray = Object.entries(flags).find(([name, v]) => name.startsWith('oidc-') && v !== undefined);
    if (stray) throw new Error(`--${stray[0]} needs --oidc-issuer-url and --oidc-client-id`);
    return undefined;
  }
  // No prototype, so a claim named __proto__ is a claim like any other.
  const requiredClaims: Record<string, string> = Object.create(null);
  for (const pair of flags['oidc-required-claim'] ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`--oidc-required-claim must be key=value, not ${JSON.stringify(pair)}`);
    requiredClaims[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const caFile = flags['oidc-ca-file'];
  const algs = flags['oidc-signing-algs'];
  return {
    issuerURL,
    clientID,
    ...(caFile ? { ca: readCAFile(caFile) } : {}),
    ...(flags['oidc-username-claim'] !== undefined ? { usernameClaim: flags['oidc-username-claim'] } : {}),
    // kube's flag: empty is "not given" (the default prefix), `-` is no prefix.
    ...(flags['oidc-username-prefix']
      ? { usernamePrefix: flags['oidc-username-prefix'] === '-' ? '' : flags['oidc-username-prefix'] }
      : {}),
    ...(flags['oidc-groups-claim'] !== undefined ? { groupsClaim: flags['oidc-groups-claim'] } : {}),
    ...(flags['oidc-groups-prefix'] !== undefined ? { groupsPrefix: flags['oidc-groups-prefix'] } : {}),
    ...(Object.keys(requiredClaims).length > 0 ? { requiredClaims } : {}),
    ...(algs ? { signingAlgorithms: algs.split(',').map((a) => a.trim()) } : {}),
  };
}

function readCAFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`Failed to read the CA file: ${(err as Error).message}`);
  }
}
