import { jsonEqual, type KubeObject, type OwnerReference, parseGroupVersion } from '@kapi/apimachinery';
import type { AuthorizationAttributes, Authorizer } from '@kapi/authz';
import type { AdmissionAttributes, Operation } from '../../attributes.ts';
import { admissionForbidden } from '../../forbidden.ts';
import type { ValidatingAdmission } from '../../plugin.ts';
import type { RESTMapper } from './rest-mapper.ts';

/** kube's admission plugin name. */
export const OWNER_REFERENCES_PERMISSION_ENFORCEMENT = 'OwnerReferencesPermissionEnforcement';

export interface OwnerReferencesPermissionEnforcementOptions {
  /** The server's authorizer (read at each request: it may be built after the admission chain). */
  authorizer: Authorizer | (() => Authorizer);
  /** Maps an owner's kind to its resources. */
  restMapper: RESTMapper;
}

/** Requests never checked: kube whitelists pods/status (old kubelets corrupt it; the pod status strategy keeps ownerReferences). */
const WHITELIST = [{ group: '', resource: 'pods', subresource: 'status' }];
const HANDLED: ReadonlySet<Operation> = new Set(['CREATE', 'UPDATE']);

const refsOf = (obj: KubeObject | null): readonly OwnerReference[] => obj?.metadata?.ownerReferences ?? [];
const blocking = (ref: OwnerReference) => ref.blockOwnerDeletion === true;
/** The identity of a reference. kube indexes by uid alone; two references sharing a uid must not hide each other. */
const refKey = (ref: OwnerReference) => JSON.stringify([ref.uid, ref.apiVersion, ref.kind, ref.name]);

/** isChangingOwnerReference: a create with any, or an update whose list differs. */
function isChangingOwnerReference(obj: KubeObject | null, old: KubeObject | null): boolean {
  const now = refsOf(obj);
  if (!old) return now.length > 0;
  const before = refsOf(old);
  return now.length !== before.length || now.some((ref, i) => !jsonEqual(ref, before[i]));
}

/** newBlockingOwnerDeletionRefs: references blocking now that were absent or not blocking before. */
function newBlockingRefs(obj: KubeObject | null, old: KubeObject | null): OwnerReference[] {
  const now = refsOf(obj).filter(blocking);
  if (now.length === 0 || !old) return now;
  const before = new Map(refsOf(old).map((r) => [refKey(r), r]));
  return now.filter((ref) => {
    const prev = before.get(refKey(ref));
    return !prev || !blocking(prev);
  });
}

/** kube formats the authorizer's reason and error with %v: a nil error prints as <nil>. */
async function authorize(authorizer: Authorizer, attrs: AuthorizationAttributes): Promise<{ allowed: boolean; why: string }> {
  try {
    const r = await authorizer.authorize(attrs);
    return { allowed: r.decision === 'Allow', why: `${r.reason}, <nil>` };
  } catch (err) {
    return { allowed: false, why: `, ${err instanceof Error ? err.message : String(err)}` };
  }
}

/**
 * kube's OwnerReferencesPermissionEnforcement (plugin/pkg/admission/gc): changing an object's ownerReferences on
 * update needs `delete` on the object (a create needs nothing: its creator could as well not have made it), and a
 * reference newly blocking its owner's deletion needs `update` on the owner's `finalizers` subresource, in the
 * object's namespace when the owner is namespaced. Validating.
 */
export function ownerReferencesPermissionEnforcement(options: OwnerReferencesPermissionEnforcementOptions): ValidatingAdmission {
  const authorizerOf = typeof options.authorizer === 'function' ? options.authorizer : () => options.authorizer as Authorizer;
  return {
    name: OWNER_REFERENCES_PERMISSION_ENFORCEMENT,
    handles: (op) => HANDLED.has(op),
    async validate(attrs: AdmissionAttributes): Promise<void> {
      const { group, version, resource } = attrs.resource;
      if (WHITELIST.some((w) => w.group === group && w.resource === resource && w.subresource === attrs.subresource)) return;
      if (!isChangingOwnerReference(attrs.object, attrs.oldObject)) return;
      const authorizer = authorizerOf();
      const record = (over: Partial<AuthorizationAttributes>): AuthorizationAttributes => ({
        user: attrs.userInfo,
        verb: '',
        resourceRequest: true,
        namespace: '',
        apiGroup: '',
        apiVersion: '',
        resource: '',
        subresource: '',
        name: '',
        path: '',
        ...over,
      });
      if (attrs.operation !== 'CREATE') {
        const del = await authorize(
          authorizer,
          record({
            verb: 'delete',
            namespace: attrs.namespace,
            apiGroup: group,
            apiVersion: version,
            resource,
            subresource: attrs.subresource,
            name: attrs.name,
          }),
        );
        if (!del.allowed) throw admissionForbidden(attrs, `cannot set an ownerRef on a resource you can't delete: ${del.why}`);
      }
      const refs = newBlockingRefs(attrs.object, attrs.oldObject);
      if (refs.length === 0) return;
      // One question first, for a user who may finalize anything: no mapping of the owners is needed then.
      const anything = await authorize(
        authorizer,
        record({ verb: 'update', apiGroup: '*', apiVersion: '*', resource: '*', subresource: 'finalizers', name: '*' }),
      );
      if (anything.allowed) return;
      for (const ref of refs) {
        let mappings: Awaited<ReturnType<RESTMapper>>;
        try {
          const gv = parseGroupVersion(ref.apiVersion ?? '');
          mappings = await options.restMapper({ group: gv.group, kind: ref.kind ?? '' }, gv.version);
        } catch (err) {
          throw admissionForbidden(
            attrs,
            `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion} Kind ${ref.kind}: ${err instanceof Error ? err.message : String(err)}`,
          );
        }
        // A kind served as several resources: every one must allow it.
        for (const m of mappings) {
          const fin = await authorize(
            authorizer,
            record({
              verb: 'update',
              apiGroup: m.group,
              apiVersion: m.version,
              resource: m.resource,
              subresource: 'finalizers',
              name: ref.name ?? '',
              // An owner is in its dependent's namespace when namespaced.
              namespace: m.namespaced ? attrs.namespace : '',
            }),
          );
          if (!fin.allowed)
            throw admissionForbidden(
              attrs,
              `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${fin.why}`,
            );
        }
      }
    },
  };
}
