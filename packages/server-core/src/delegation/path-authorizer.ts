import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '@kapi/authz';

/**
 * kube's path authorizer (k8s.io/apiserver/pkg/authorization/path): non-resource requests to one of `paths` (leading
 * "/" optional; a trailing "*" makes a prefix) are allowed for anyone; everything else has no opinion. An extension
 * server puts it first so health checks need no SubjectAccessReview.
 */
export function pathAuthorizer(paths: readonly string[]): Authorizer {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const p of paths) {
    const path = p.replace(/^\//, '');
    if (path.length > 0 && path.slice(0, -1).includes('*')) throw new Error(`only trailing * allowed in ${JSON.stringify(path)}`);
    if (path.endsWith('*')) prefixes.push(path.slice(0, -1));
    else exact.add(path);
  }
  const allow: AuthorizationResult = { decision: 'Allow', reason: '' };
  const none: AuthorizationResult = { decision: 'NoOpinion', reason: '' };
  return {
    async authorize(a: AuthorizationAttributes): Promise<AuthorizationResult> {
      if (a.resourceRequest) return none;
      const path = a.path.replace(/^\//, '');
      if (exact.has(path) || prefixes.some((p) => path.startsWith(p))) return allow;
      return none;
    },
  };
}
