import type { AuthorizationAttributes } from './authorizer.ts';

// kube keeps Forbidden texts from looking like HTML; quotes are left alone (responsewriters' sanitizer).
const sanitize = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Go's %q for the strings kube quotes (JSON escaping agrees with it for printable text). */
const q = (s: string): string => JSON.stringify(s);

/**
 * The text after `forbidden: ` in kube's 403 (responsewriters.Forbidden): what the user may not do,
 * then `: <reason>` when the authorizer gave one. E.g.
 * `User "bob" cannot get resource "configmaps" in API group "" in the namespace "default"`,
 * `User "bob" cannot get path "/healthz"`, `... cannot update resource "pods/status" ... at the cluster scope`.
 * Wrap it with apimachinery's newForbidden({ group: apiGroup, resource }, name, …) as kube does.
 */
export function forbiddenMessage(attrs: AuthorizationAttributes, reason = ''): string {
  const user = q(attrs.user.name);
  let msg: string;
  if (!attrs.resourceRequest) {
    msg = `User ${user} cannot ${attrs.verb} path ${q(attrs.path)}`;
  } else {
    const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    const where = attrs.namespace ? `in the namespace ${q(attrs.namespace)}` : 'at the cluster scope';
    msg = `User ${user} cannot ${attrs.verb} resource ${q(resource)} in API group ${q(attrs.apiGroup)} ${where}`;
  }
  msg = sanitize(msg);
  return reason === '' ? msg : `${msg}: ${reason}`;
}
