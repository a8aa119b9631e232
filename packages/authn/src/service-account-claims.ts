/** kube's serviceaccount.ServiceAccountUsernamePrefix and the groups every service account is in. */
export const SERVICE_ACCOUNT_USERNAME_PREFIX = 'system:serviceaccount:';
export const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';

/** kube's issuer of legacy (Secret-based) service-account tokens. */
export const LEGACY_SERVICE_ACCOUNT_ISSUER = 'kubernetes/serviceaccount';

/** The user-info extra keys kube sets for a bound token (pkg/serviceaccount). */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';
export const POD_NAME_KEY = 'authentication.kubernetes.io/pod-name';
export const POD_UID_KEY = 'authentication.kubernetes.io/pod-uid';
export const NODE_NAME_KEY = 'authentication.kubernetes.io/node-name';
export const NODE_UID_KEY = 'authentication.kubernetes.io/node-uid';

/** A named object with its uid, as the `kubernetes.io` claim holds it. */
export interface ObjectRef {
  readonly name: string;
  readonly uid: string;
}

/** The kinds a token may be bound to (kube's TokenRequest boundObjectRef). */
export type BoundObjectKind = 'Pod' | 'Secret' | 'Node';

/** The `kubernetes.io` private claim of a bound token. */
export interface KubernetesClaim {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
}

/** `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USERNAME_PREFIX}${namespace}:${name}`;
}

/** `system:serviceaccounts:<namespace>`. */
export function serviceAccountNamespaceGroup(namespace: string): string {
  return `${ALL_SERVICE_ACCOUNTS_GROUP}:${namespace}`;
}

/** The namespace and name of a service-account user name, or undefined when it is not one. */
export function parseServiceAccountUsername(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(SERVICE_ACCOUNT_USERNAME_PREFIX)) return undefined;
  const parts = user.slice(SERVICE_ACCOUNT_USERNAME_PREFIX.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}
