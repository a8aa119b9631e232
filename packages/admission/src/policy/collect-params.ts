import { formatAPIVersionKind, type KubeObject, labelSelectorFromMetav1 } from '@kapi/apimachinery';
import type { ParamKind, ParamRef } from '../admissionregistration/types.ts';
import type { ParamKindRef, ParamSource } from './param-source.ts';

/** `group/version, Kind=kind` (schema.GroupVersionKind's String, as kube prints a paramKind). */
export function paramKindString(kind: ParamKindRef): string {
  return formatAPIVersionKind(kind.apiVersion, kind.kind);
}

/**
 * kube's generic.CollectParams: the params one binding evaluates its policy with. No paramKind, or no paramRef:
 * one evaluation with a null param. A name gives that object (none when it is missing); a selector every object it
 * selects. None found under `parameterNotFoundAction: Deny` is an error; under Allow, nothing is evaluated.
 * Errors are configuration errors in kube's words.
 */
export function collectParams(
  paramKind: ParamKind | undefined,
  paramRef: ParamRef | undefined,
  source: ParamSource,
  namespace: string,
): (KubeObject | null)[] | Error {
  if (!paramKind || !paramRef) return [null];
  const kind: ParamKindRef = { apiVersion: paramKind.apiVersion ?? '', kind: paramKind.kind ?? '' };
  if (!source.known(kind)) return new Error(`paramKind kind \`${paramKindString(kind)}\` not known`);
  const namespaced = source.namespaced?.(kind) ?? true;
  let paramsNamespace = '';
  if (namespaced) {
    paramsNamespace = paramRef.namespace || namespace;
    if (paramsNamespace === '') return new Error('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  } else if (paramRef.namespace) {
    return new Error('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  }
  let params: KubeObject[];
  if (paramRef.name) {
    if (paramRef.selector) return new Error('paramRef.name and paramRef.selector are mutually exclusive');
    const param = source.get(kind, paramsNamespace, paramRef.name);
    params = param ? [param] : [];
  } else if (paramRef.selector) {
    let selector: ReturnType<typeof labelSelectorFromMetav1>;
    try {
      selector = labelSelectorFromMetav1(paramRef.selector);
    } catch (e) {
      return e instanceof Error ? e : new Error(String(e));
    }
    params = [...source.list(kind, paramsNamespace, selector)];
  } else {
    return new Error('one of name or selector must be provided');
  }
  if (params.length === 0 && paramRef.parameterNotFoundAction === 'Deny') {
    return new Error('no params found for policy binding with `Deny` parameterNotFoundAction');
  }
  // a param without TypeMeta gets the paramKind's, as kube's wrappedParam gives it
  return params.map((p) => (p.apiVersion && p.kind ? p : { ...p, apiVersion: kind.apiVersion, kind: kind.kind }));
}
