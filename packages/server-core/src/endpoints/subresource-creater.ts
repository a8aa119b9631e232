import type { KubeObject } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';
import type { RequestContext } from '../filters/context.ts';

/** What a create-only subresource is told of the request. */
export interface SubresourceCreateRequest {
  readonly ctx: RequestContext;
  /** '' for a cluster-scoped kind. */
  readonly namespace: string;
  /** The object the subresource belongs to (the name in the path). */
  readonly name: string;
  /** The decoded body, its apiVersion and kind checked against the subresource's and defaulted. */
  readonly body: KubeObject;
  readonly dryRun: boolean;
  readonly user: UserInfo | undefined;
}

/**
 * A create-only subresource of a served kind (kube's rest.NamedCreater: serviceaccounts/token, pods/eviction,
 * pods/binding): POST `<object path>/<subresource>` with a body of its own kind; the result is sent as 201 Created.
 */
export interface SubresourceCreater {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  create(request: SubresourceCreateRequest): Promise<unknown>;
  /** The response as audit records it, when it holds a credential (a TokenRequest's token) that must not be logged. */
  auditResponse?(response: unknown): unknown;
}
