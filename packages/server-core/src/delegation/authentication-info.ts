import type { X509Certificate } from 'node:crypto';
import { parseCABundle } from '@kapi/authn';

/** Where kube-apiserver publishes how extension servers should authenticate its callers. */
export const AUTHENTICATION_INFO_NAMESPACE = 'kube-system';
export const AUTHENTICATION_INFO_NAME = 'extension-apiserver-authentication';

/** The keys of that ConfigMap (kube's clusterauthenticationtrust controller); the header lists are JSON arrays. */
export const AUTHENTICATION_INFO_KEYS = {
  clientCA: 'client-ca-file',
  requestHeaderCA: 'requestheader-client-ca-file',
  allowedNames: 'requestheader-allowed-names',
  usernameHeaders: 'requestheader-username-headers',
  uidHeaders: 'requestheader-uid-headers',
  groupHeaders: 'requestheader-group-headers',
  extraHeaderPrefixes: 'requestheader-extra-headers-prefix',
} as const;

/** The content of the ConfigMap, parsed: PEM bundles (may be empty) and header lists. */
export interface AuthenticationInfo {
  clientCA: string;
  requestHeaderCA: string;
  allowedNames: string[];
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

const LISTS = ['allowedNames', 'usernameHeaders', 'uidHeaders', 'groupHeaders', 'extraHeaderPrefixes'] as const;

/** kube's jsonDeserializeStringSlice: "" is no list; anything but a JSON array of strings is an error naming the key. */
function stringList(data: Record<string, string>, key: string): string[] {
  const text = data[key];
  if (text === undefined || text === '') return [];
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new Error(`${key}: ${(err as Error).message}`);
  }
  if (v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new Error(`${key}: not a JSON array of strings`);
  return v;
}

/** kube's getClusterAuthenticationInfoFor: the ConfigMap's `data`, read. */
export function parseAuthenticationInfo(data: Record<string, string> | undefined): AuthenticationInfo {
  const d = data ?? {};
  const info: AuthenticationInfo = {
    clientCA: d[AUTHENTICATION_INFO_KEYS.clientCA] ?? '',
    requestHeaderCA: d[AUTHENTICATION_INFO_KEYS.requestHeaderCA] ?? '',
    allowedNames: [],
    usernameHeaders: [],
    uidHeaders: [],
    groupHeaders: [],
    extraHeaderPrefixes: [],
  };
  for (const k of LISTS) info[k] = stringList(d, AUTHENTICATION_INFO_KEYS[k]);
  return info;
}

/** kube's combineUniqueStringSlices: lhs then rhs, first occurrence kept. */
function combineUnique(lhs: readonly string[], rhs: readonly string[]): string[] {
  return [...new Set([...lhs, ...rhs])];
}

/**
 * kube's combineCertLists: the certificates of both bundles, those expired more than five minutes ago dropped, each
 * once (by its DER bytes), as PEM; "" when none is left.
 */
function combineCerts(lhs: string, rhs: string, now: number): string {
  const certs: X509Certificate[] = [];
  for (const pem of [lhs, rhs]) if (pem.trim() !== '') certs.push(...parseCABundle(pem));
  const seen = new Set<string>();
  let out = '';
  for (const c of certs) {
    if (Date.parse(c.validTo) <= now - 5 * 60_000) continue;
    const der = c.raw.toString('base64');
    if (seen.has(der)) continue;
    seen.add(der);
    out += pemOf(c);
  }
  return out;
}

/** Go's pem.Encode of a certificate: 64-column base64 lines. */
function pemOf(c: X509Certificate): string {
  const b64 = c.raw.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN CERTIFICATE-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`;
}

/**
 * kube's combinedClusterAuthenticationInfo: what is published already (other API servers of the cluster may have
 * written it) joined with this server's, so several servers can share the ConfigMap.
 */
export function combineAuthenticationInfo(existing: AuthenticationInfo, own: AuthenticationInfo, now = Date.now()): AuthenticationInfo {
  return {
    clientCA: combineCerts(existing.clientCA, own.clientCA, now),
    requestHeaderCA: combineCerts(existing.requestHeaderCA, own.requestHeaderCA, now),
    allowedNames: combineUnique(existing.allowedNames, own.allowedNames),
    usernameHeaders: combineUnique(existing.usernameHeaders, own.usernameHeaders),
    uidHeaders: combineUnique(existing.uidHeaders, own.uidHeaders),
    groupHeaders: combineUnique(existing.groupHeaders, own.groupHeaders),
    extraHeaderPrefixes: combineUnique(existing.extraHeaderPrefixes, own.extraHeaderPrefixes),
  };
}

/**
 * kube's getConfigMapDataFor: `client-ca-file` when there is a client CA; the request-header keys only when there is a
 * request-header CA, the lists as JSON arrays (`["X-Remote-User"]`, `[]` when empty).
 */
export function authenticationInfoData(info: AuthenticationInfo): Record<string, string> {
  const data: Record<string, string> = {};
  const k = AUTHENTICATION_INFO_KEYS;
  if (info.clientCA !== '') data[k.clientCA] = info.clientCA;
  if (info.requestHeaderCA === '') return data;
  data[k.usernameHeaders] = JSON.stringify(info.usernameHeaders);
  data[k.uidHeaders] = JSON.stringify(info.uidHeaders);
  data[k.groupHeaders] = JSON.stringify(info.groupHeaders);
  data[k.extraHeaderPrefixes] = JSON.stringify(info.extraHeaderPrefixes);
  data[k.requestHeaderCA] = info.requestHeaderCA;
  data[k.allowedNames] = JSON.stringify(info.allowedNames);
  return data;
}
