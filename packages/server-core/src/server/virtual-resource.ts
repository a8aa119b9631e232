import type { KubeObject } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';
import type { VirtualResourceInfo } from '../discovery/documents.ts';
import type { RequestContext } from '../filters/context.ts';
import type { RequestInfo } from '../request-info.ts';

/** What a virtual resource's `create` is told of the request. */
export interface VirtualRequest {
  readonly ctx: RequestContext;
  readonly info: RequestInfo;
  /** The requesting user after impersonation (system:anonymous when the server authenticates nobody). */
  readonly user: UserInfo;
  /** `?dryRun=All`. */
  readonly dryRun: boolean;
}

/**
 * A resource of one group-version served by code rather than by a Store (kube's rest.Creater-only REST, e.g.
 * SelfSubjectAccessReview): GenericAPIServer routes its requests like a resource's (after authentication,
 * impersonation, audit and authorization) and lists it in legacy and aggregated discovery with its verbs and kind.
 *
 * `create` serves POST to the collection: it gets the decoded body (JSON, YAML, or Kubernetes protobuf of a kind kapi's
 * codec models; apiVersion and kind checked against this resource and defaulted), after mutating and validating
 * admission, and returns the response object, sent as 201 Created. `handle` serves any other request (any verb,
 * subresource or name) itself; without it those are answered 405 (or 404 with a name), as kube's router does.
 */
export interface VirtualResource extends VirtualResourceInfo {
  create?(body: KubeObject, request: VirtualRequest): Promise<unknown> | unknown;
  /** What audit records as the request object, when the body holds a secret (TokenReview's spec.token). Default the body. */
  auditObject?(body: KubeObject): unknown;
  handle?(ctx: RequestContext, info: RequestInfo): Promise<void>;
}
