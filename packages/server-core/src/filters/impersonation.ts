import { nameIsDNSLabel, nameIsDNSSubdomain, newForbidden, newInternalError } from '@kapi/apimachinery';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, type UserInfo } from '@kapi/authn';
import { type AuthorizationAttributes, type Authorizer, forbiddenMessage } from '@kapi/authz';
import { noteImpersonation } from '../audit/context.ts';
import type { Filter } from './context.ts';
import { deleteRequestHeader } from './delete-header.ts';
import { writeStatus } from './write-status.ts';

export interface ImpersonationOptions {
  /** Asked, for each thing impersonated, whether the authenticated user may `impersonate` it. */
  authorizer: Authorizer;
}

export const IMPERSONATE_USER_HEADER = 'Impersonate-User';
export const IMPERSONATE_UID_HEADER = 'Impersonate-Uid';
export const IMPERSONATE_GROUP_HEADER = 'Impersonate-Group';
export const IMPERSONATE_EXTRA_HEADER_PREFIX = 'Impersonate-Extra-';

const SA_PREFIX = 'system:serviceaccount:';
const AUTHN_GROUP = 'authentication.k8s.io';
const AUTHN_VERSION = 'v1';

/** kube builds one of these (a v1.ObjectReference) per thing to impersonate, and authorizes each. */
interface ImpersonationRequest {
  kind: 'ServiceAccount' | 'User' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  fieldPath: string;
}

/**
 * kube's WithImpersonation. `Impersonate-User` (a user, or `system:serviceaccount:<ns>:<name>`),
 * `Impersonate-Uid`, `Impersonate-Group` (repeatable) and `Impersonate-Extra-<key>` (key lower-cased and
 * percent-decoded) each need `impersonate` permission on users / serviceaccounts / groups /
 * uids.authentication.k8s.io / userextras.authentication.k8s.io/<key>, named by the value. The first refusal
 * is kube's 403; anything but a user without `Impersonate-User` is kube's 500. The impersonated user gets
 * `system:authenticated` (or, for system:anonymous, `system:unauthenticated`) unless already in it, and the
 * headers are removed before the request goes on.
 */
export function withImpersonation(opts: ImpersonationOptions): Filter {
  return async (ctx, next) => {
    const headers = ctx.req.headersDistinct;
    let requests: ImpersonationRequest[];
    try {
      requests = buildImpersonationRequests(headers);
    } catch (err) {
      writeStatus(ctx.res, newInternalError(err));
      return;
    }
    if (requests.length === 0) return next();

    const requestor = ctx.user;
    if (!requestor) {
      writeStatus(ctx.res, newInternalError(new Error('no user found for request')));
      return;
    }

    const groupsSpecified = (headers['impersonate-group']?.length ?? 0) > 0;
    let username = '';
    let uid = '';
    let groups: string[] = [];
    const extra: Record<string, string[]> = {};
    for (const r of requests) {
      const [apiGroup = '', apiVersion = ''] = r.apiVersion.includes('/') ? r.apiVersion.split('/') : ['', r.apiVersion];
      let resource: string;
      let subresource = '';
      switch (r.kind) {
        case 'ServiceAccount':
          resource = 'serviceaccounts';
          username = `${SA_PREFIX}${r.namespace}:${r.name}`;
          if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
          break;
        case 'User':
          resource = 'users';
          username = r.name;
          break;
        case 'Group':
          resource = 'groups';
          groups.push(r.name);
          break;
        case 'UserExtra':
          resource = 'userextras';
          subresource = r.fieldPath;
          extra[r.fieldPath] = [...(extra[r.fieldPath] ?? []), r.name];
          break;
        case 'UID':
          resource = 'uids';
          uid = r.name;
          break;
      }
      const attrs: AuthorizationAttributes = {
        user: requestor,
        verb: 'impersonate',
        resourceRequest: true,
        namespace: r.namespace,
        apiGroup,
        apiVersion,
        resource,
        subresource,
        name: r.name,
        path: '',
      };
      let decision = 'NoOpinion';
      let reason = '';
      try {
        ({ decision, reason } = await opts.authorizer.authorize(attrs));
      } catch {
        // kube treats an error like a refusal here, with whatever reason there was (none).
        decision = 'NoOpinion';
      }
      if (decision !== 'Allow') {
        writeStatus(ctx.res, newForbidden({ group: apiGroup, resource }, r.name, forbiddenMessage(attrs, reason)));
        return;
      }
    }

    if (username !== ANONYMOUS_USER) {
      if (!groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
    } else if (!groups.includes(ALL_UNAUTHENTICATED)) {
      groups.push(ALL_UNAUTHENTICATED);
    }

    const impersonated: UserInfo = {
      name: username,
      ...(uid ? { uid } : {}),
      groups,
      ...(Object.keys(extra).length ? { extra } : {}),
    };
    ctx.user = impersonated;
    noteImpersonation(ctx, requestor, impersonated);

    for (const name of Object.keys(ctx.req.headers)) {
      if (
        name === 'impersonate-user' ||
        name === 'impersonate-group' ||
        name === 'impersonate-uid' ||
        name.startsWith('impersonate-extra-')
      ) {
        deleteRequestHeader(ctx.req, name);
      }
    }
    await next();
  };
}

/** kube's buildImpersonationRequests, over Node's lower-cased, de-joined headers (in the order they came). */
function buildImpersonationRequests(headers: NodeJS.Dict<string[]>): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const ref = (kind: ImpersonationRequest['kind'], name: string, more: Partial<ImpersonationRequest> = {}): ImpersonationRequest => ({
    kind,
    namespace: '',
    name,
    apiVersion: '',
    fieldPath: '',
    ...more,
  });

  const user = headers['impersonate-user']?.[0] ?? '';
  const hasUser = user.length > 0;
  if (hasUser) {
    const sa = splitServiceAccountUsername(user);
    requests.push(sa ? ref('ServiceAccount', sa.name, { namespace: sa.namespace }) : ref('User', user));
  }

  let hasGroups = false;
  for (const group of headers['impersonate-group'] ?? []) {
    hasGroups = true;
    requests.push(ref('Group', group));
  }

  let hasExtra = false;
  const prefix = IMPERSONATE_EXTRA_HEADER_PREFIX.toLowerCase();
  for (const [name, values] of Object.entries(headers)) {
    if (!name.startsWith(prefix)) continue;
    hasExtra = true;
    const key = unescapeExtraKey(name.slice(prefix.length).toLowerCase());
    for (const value of values ?? []) {
      requests.push(ref('UserExtra', value, { apiVersion: `${AUTHN_GROUP}/${AUTHN_VERSION}`, fieldPath: key }));
    }
  }

  const uid = headers['impersonate-uid']?.[0] ?? '';
  const hasUID = uid.length > 0;
  if (hasUID) requests.push(ref('UID', uid, { apiVersion: `${AUTHN_GROUP}/${AUTHN_VERSION}` }));

  if ((hasGroups || hasExtra || hasUID) && !hasUser) {
    throw new Error(`requested ${formatRequests(requests)} without impersonating a user`);
  }
  return requests;
}

/** Go's %v of a []v1.ObjectReference: `[{Group  g1    }]` (Kind Namespace Name UID APIVersion ResourceVersion FieldPath). */
function formatRequests(requests: readonly ImpersonationRequest[]): string {
  return `[${requests.map((r) => `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.fieldPath].join(' ')}}`).join(' ')}]`;
}

/** kube's serviceaccount.SplitUsername: `system:serviceaccount:<namespace>:<name>` with a valid namespace and name. */
function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SA_PREFIX)) return undefined;
  const parts = username.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (nameIsDNSLabel(namespace, false).length || nameIsDNSSubdomain(name, false).length) return undefined;
  return { namespace, name };
}

/** url.PathUnescape, falling back to the encoded key when it is malformed (kube records it anyway). */
function unescapeExtraKey(encoded: string): string {
  if (!encoded.includes('%')) return encoded;
  if (/%(?![0-9a-fA-F]{2})/.test(encoded)) return encoded;
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; ) {
    if (encoded[i] === '%') {
      bytes.push(Number.parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      const cp = encoded.codePointAt(i) as number;
      const ch = String.fromCodePoint(cp);
      for (const b of Buffer.from(ch)) bytes.push(b);
      i += ch.length;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
