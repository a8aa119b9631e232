import { type KubeObject, newBadRequest, newInternalError } from '@kapi/apimachinery';
import type { AuthenticationResult, Authenticator } from '@kapi/authn';
import type { VirtualResource } from '../server/virtual-resource.ts';
import { AUTHENTICATION_GROUP } from './self-subject-review.ts';

export interface TokenReviewOptions {
  /** The server's request authenticator (the one its authentication filter runs). */
  authenticator: Authenticator;
  /** kube's --api-audiences: what a review without spec.audiences checks the token against. */
  apiAudiences?: readonly string[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * authentication.k8s.io/v1 TokenReview (kube's tokenreview REST), create only: aggregated API servers and webhooks
 * hand this server a bearer token to check. It runs the server's authenticator on a request carrying nothing but
 * `Authorization: Bearer <spec.token>`, for spec.audiences (else the API audiences), and answers status.authenticated,
 * status.user, status.audiences and status.error as kube does. Unlike kube, the answer leaves spec.token out, and the
 * audit log records the request without it, so the token is written nowhere.
 */
export function tokenReviewResource(options: TokenReviewOptions): VirtualResource {
  const apiAudiences = options.apiAudiences ?? [];
  return {
    group: AUTHENTICATION_GROUP,
    version: 'v1',
    resource: 'tokenreviews',
    singularName: 'tokenreview',
    kind: 'TokenReview',
    namespaced: false,
    verbs: ['create'],
    auditObject: withoutToken,
    async create(body) {
      const spec = isRecord(body.spec) ? body.spec : {};
      const token = spec.token;
      if (typeof token !== 'string' || token === '') throw newBadRequest('token is required for TokenReview in authentication');
      const requested = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
      const audiences = requested.length ? requested : [...apiAudiences];
      let result: AuthenticationResult | null = null;
      let error: string | undefined;
      try {
        result = await options.authenticator.authenticate({
          headers: { authorization: `Bearer ${token}` },
          ...(audiences.length ? { audiences } : {}),
        });
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      }
      if (audiences.length && result && !(result.audiences ?? []).some((a) => audiences.includes(a))) {
        // kube's badAuthenticatorAuds: an authenticator that ignored the audiences it was asked for is a server fault.
        throw newInternalError('error validating audiences');
      }
      const status: Record<string, unknown> = { authenticated: result !== null };
      if (result) {
        const { user } = result;
        const userInfo: Record<string, unknown> = {};
        if (user.name) userInfo.username = user.name;
        if (user.uid) userInfo.uid = user.uid;
        if (user.groups.length) userInfo.groups = [...user.groups];
        if (user.extra && Object.keys(user.extra).length) userInfo.extra = structuredClone(user.extra);
        status.user = userInfo;
        if (result.audiences?.length) status.audiences = [...result.audiences];
      }
      if (error !== undefined) status.error = error;
      return {
        kind: 'TokenReview',
        apiVersion: `${AUTHENTICATION_GROUP}/v1`,
        metadata: isRecord(body.metadata) ? withoutManaged(body.metadata) : {},
        spec: requested.length ? { audiences: requested } : {},
        status,
      };
    },
  };
}

/** The review as audit may record it: spec.token left out. */
function withoutToken(obj: KubeObject): unknown {
  if (!isRecord(obj.spec) || !('token' in obj.spec)) return obj;
  const { token: _token, ...spec } = obj.spec;
  return { ...obj, spec };
}

/** kube's REST hands metadata back as sent, but a review is not stored: creationTimestamp and the like stay empty. */
function withoutManaged(metadata: Record<string, unknown>): Record<string, unknown> {
  const { name, generateName, labels, annotations } = metadata;
  return {
    ...(typeof name === 'string' && name ? { name } : {}),
    ...(typeof generateName === 'string' && generateName ? { generateName } : {}),
    ...(isRecord(labels) ? { labels } : {}),
    ...(isRecord(annotations) ? { annotations } : {}),
  };
}
