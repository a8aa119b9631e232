import type { RequestInfo } from '@kapi/server-core';

/**
 * Which API requests a fault applies to; every field given must match, an empty match takes every resource request.
 * Non-resource requests (discovery, /healthz, /version) never match, so a fault aimed at a controller's calls does
 * not break its client's discovery.
 */
export interface RequestMatch {
  /** kube's verbs: get, list, watch, create, update, patch, delete, deletecollection (one or several). */
  verb?: string | readonly string[];
  /**
   * `plural` (any group), `plural.group` (exactly that group; core is `plural` alone) or either with `/subresource`
   * (`widgets/status`). As in RBAC, `widgets` does not take `widgets/status`.
   */
  resource?: string;
  name?: string;
  namespace?: string;
}

/** kube's verbs that change objects, for a match on every write: `{ verb: WRITE_VERBS }`. */
export const WRITE_VERBS: readonly string[] = ['create', 'update', 'patch', 'delete', 'deletecollection'];

/** Whether the request `info` describes is one `match` takes. */
export function matchesRequest(info: RequestInfo | undefined, match: RequestMatch = {}): boolean {
  if (!info?.isResourceRequest) return false;
  if (match.verb !== undefined && !(typeof match.verb === 'string' ? [match.verb] : match.verb).includes(info.verb)) return false;
  if (match.name !== undefined && info.name !== match.name) return false;
  if (match.namespace !== undefined && info.namespace !== match.namespace) return false;
  if (match.resource !== undefined) {
    const [gr = '', sub = ''] = match.resource.split('/', 2);
    if (sub !== info.subresource) return false;
    const dot = gr.indexOf('.');
    if (dot < 0) return gr === info.resource;
    return gr.slice(0, dot) === info.resource && gr.slice(dot + 1) === info.apiGroup;
  }
  return true;
}
