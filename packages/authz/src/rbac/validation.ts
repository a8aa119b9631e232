import {
  type FieldError,
  fieldErrors,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  labelSelectorFromMetav1,
  type MetaV1LabelSelector,
  nameIsDNSSubdomain,
  OMIT_VALUE,
} from '@kapi/apimachinery';
import {
  type ClusterRole,
  type LabelSelector,
  type PolicyRule,
  RBAC_GROUP,
  type Role,
  type RoleBinding,
  type RoleRef,
  type Subject,
} from './types.ts';

/**
 * kube's RBAC validation (pkg/apis/rbac/validation), field paths and words included. ObjectMeta is the Store's to
 * check (with validateRBACName as the kinds' name rule); everything else is here. Objects come as decoded: a field
 * left out reads as Go's zero value, as kube-apiserver sees it.
 */

/** ValidateRBACName: roles and bindings need only be one path segment (`system:basic-user` is a fine name). */
export function validateRBACName(name: string, _prefix: boolean): string[] {
  return isValidPathSegmentName(name);
}

/** Go's `%#v` of a []string, the way kube's field errors print a list value. */
function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/** An Invalid error whose value kube prints with `%#v` (a slice or a struct), worded as its ErrorBody does. */
function invalidGoValue(field: string, goValue: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, badValue: OMIT_VALUE, detail: `${goValue}: ${detail}` };
}

const len = (list: readonly unknown[] | undefined): number => list?.length ?? 0;

/** ValidatePolicyRule: verbs always; either non-resource URLs (cluster roles only) or api groups and resources. */
export function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (len(rule.verbs) === 0) errs.push(fieldErrors.required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = rule.nonResourceURLs ?? [];
  if (urls.length > 0) {
    if (namespaced)
      errs.push(invalidGoValue(`${path}.nonResourceURLs`, goStringSlice(urls), 'namespaced rules cannot apply to non-resource URLs'));
    if (len(rule.apiGroups) > 0 || len(rule.resources) > 0 || len(rule.resourceNames) > 0)
      errs.push(
        invalidGoValue(
          `${path}.nonResourceURLs`,
          goStringSlice(urls),
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    return errs;
  }
  if (len(rule.apiGroups) === 0) errs.push(fieldErrors.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (len(rule.resources) === 0) errs.push(fieldErrors.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(rules: readonly PolicyRule[] | undefined, namespaced: boolean): FieldError[] {
  return (rules ?? []).flatMap((rule, i) => validatePolicyRule(rule, namespaced, `rules[${i}]`));
}

/** ValidateRole (beside ObjectMeta). */
export function validateRole(role: Role): FieldError[] {
  return validateRules(role.rules, true);
}

/** ValidateRoleUpdate: a role's rules may change freely; it repeats ValidateRole, as kube's does. */
export function validateRoleUpdate(role: Role, _old: Role): FieldError[] {
  return validateRole(role);
}

export interface LabelSelectorValidationOptions {
  /** Label values in matchExpressions are not checked (an update of an object whose selector already had bad ones). */
  allowInvalidLabelValueInSelector?: boolean;
}

function validateLabelName(name: string, path: string): FieldError[] {
  return isQualifiedName(name).map((msg) => fieldErrors.invalid(path, name, msg));
}

/** metav1validation.ValidateLabelSelector: matchLabels as labels, matchExpressions' operators, keys and values. */
export function validateLabelSelector(selector: LabelSelector, opts: LabelSelectorValidationOptions, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const labels = selector.matchLabels ?? {};
  // Go ranges over the map in random order; sorted keys keep the errors' order stable.
  for (const key of Object.keys(labels).sort()) {
    errs.push(...validateLabelName(key, `${path}.matchLabels`));
    for (const msg of isValidLabelValue(labels[key] as string)) errs.push(fieldErrors.invalid(`${path}.matchLabels`, labels[key], msg));
  }
  (selector.matchExpressions ?? []).forEach((expr, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const values = expr.values ?? [];
    const operator = expr.operator ?? '';
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fieldErrors.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          errs.push(fieldErrors.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldErrors.invalid(`${at}.operator`, operator, 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(expr.key ?? '', `${at}.key`));
    if (!opts.allowInvalidLabelValueInSelector)
      values.forEach((v, j) => {
        for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(`${at}.values[${j}]`, v, msg));
      });
  });
  return errs;
}

/** metav1.LabelSelectorAsSelector succeeds: apimachinery's compiler is the judge, as kube's is. */
function compiles(selector: LabelSelector): boolean {
  try {
    labelSelectorFromMetav1(selector as MetaV1LabelSelector);
    return true;
  } catch {
    return false;
  }
}

export interface ClusterRoleValidationOptions {
  allowInvalidLabelValueInSelector?: boolean;
}

/** ValidateClusterRole (beside ObjectMeta): rules without namespaces, and an aggregation rule with valid selectors. */
export function validateClusterRole(role: ClusterRole, opts: ClusterRoleValidationOptions = {}): FieldError[] {
  const errs = validateRules(role.rules, false);
  const aggregation = role.aggregationRule;
  if (aggregation) {
    const selectors = aggregation.clusterRoleSelectors ?? [];
    if (selectors.length === 0)
      errs.push(
        fieldErrors.required(
          'aggregationRule.clusterRoleSelectors',
          'at least one clusterRoleSelector required if aggregationRule is non-nil',
        ),
      );
    selectors.forEach((selector, i) => {
      const path = `aggregationRule.clusterRoleSelectors[${i}]`;
      errs.push(...validateLabelSelector(selector, opts, path));
      // kube reports the selector it failed to build, which is nil: its value prints as "null".
      if (!compiles(selector)) errs.push(fieldErrors.invalid(path, null, 'invalid label selector.'));
    });
  }
  return errs;
}

/** ValidateClusterRoleUpdate: repeats ValidateClusterRole, as kube's does. */
export function validateClusterRoleUpdate(role: ClusterRole, _old: ClusterRole, opts: ClusterRoleValidationOptions = {}): FieldError[] {
  return validateClusterRole(role, opts);
}

/** The clusterrole strategy's ratchet: an update may keep the bad label values the stored selectors already have. */
export function hasInvalidLabelValueInSelectors(role: ClusterRole): boolean {
  return (role.aggregationRule?.clusterRoleSelectors ?? []).some((s) => validateLabelSelector(s, {}, '').length > 0);
}

/** ValidateRoleBindingSubject: ServiceAccounts in the core group with a namespace (always, in a cluster binding); Users and Groups in rbac's. */
export function validateRoleBindingSubject(subject: Subject, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = subject.name ?? '';
  const apiGroup = subject.apiGroup ?? '';
  const kind = subject.kind ?? '';
  if (name === '') errs.push(fieldErrors.required(`${path}.name`, ''));
  switch (kind) {
    case 'ServiceAccount':
      if (name !== '') for (const msg of nameIsDNSSubdomain(name, false)) errs.push(fieldErrors.invalid(`${path}.name`, name, msg));
      if (apiGroup !== '') errs.push(fieldErrors.notSupported(`${path}.apiGroup`, apiGroup, ['']));
      if (!namespaced && !subject.namespace) errs.push(fieldErrors.required(`${path}.namespace`, ''));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported(`${path}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(fieldErrors.notSupported(`${path}.kind`, kind, ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBinding(binding: RoleBinding, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref: Partial<RoleRef> = binding.roleRef ?? {};
  const apiGroup = ref.apiGroup ?? '';
  const kind = ref.kind ?? '';
  const name = ref.name ?? '';
  if (apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind)) errs.push(fieldErrors.notSupported('roleRef.kind', kind, kinds));
  if (name === '') errs.push(fieldErrors.required('roleRef.name', ''));
  else for (const msg of validateRBACName(name, false)) errs.push(fieldErrors.invalid('roleRef.name', name, msg));
  (binding.subjects ?? []).forEach((s, i) => {
    errs.push(...validateRoleBindingSubject(s, namespaced, `subjects[${i}]`));
  });
  return errs;
}

/** Go's `%#v` of the internal rbac.RoleRef, as "cannot change roleRef" prints it. */
function goRoleRef(ref: Partial<RoleRef> | undefined): string {
  const q = (s: string | undefined) => JSON.stringify(s ?? '');
  return `rbac.RoleRef{APIGroup:${q(ref?.apiGroup)}, Kind:${q(ref?.kind)}, Name:${q(ref?.name)}}`;
}

function roleRefChanged(binding: RoleBinding, old: RoleBinding): FieldError[] {
  const a: Partial<RoleRef> = binding.roleRef ?? {};
  const b: Partial<RoleRef> = old.roleRef ?? {};
  const same = (a.apiGroup ?? '') === (b.apiGroup ?? '') && (a.kind ?? '') === (b.kind ?? '') && (a.name ?? '') === (b.name ?? '');
  return same ? [] : [invalidGoValue('roleRef', goRoleRef(binding.roleRef), 'cannot change roleRef')];
}

/** ValidateRoleBinding (beside ObjectMeta): a roleRef to a Role or ClusterRole of rbac's group, and valid subjects. */
export function validateRoleBinding(binding: RoleBinding): FieldError[] {
  return validateBinding(binding, true);
}

/** ValidateRoleBindingUpdate: ValidateRoleBinding again, and roleRef may not change. */
export function validateRoleBindingUpdate(binding: RoleBinding, old: RoleBinding): FieldError[] {
  return [...validateBinding(binding, true), ...roleRefChanged(binding, old)];
}

/** ValidateClusterRoleBinding (beside ObjectMeta): a roleRef to a ClusterRole, and subjects (service accounts with namespaces). */
export function validateClusterRoleBinding(binding: RoleBinding): FieldError[] {
  return validateBinding(binding, false);
}

/** ValidateClusterRoleBindingUpdate: ValidateClusterRoleBinding again, and roleRef may not change. */
export function validateClusterRoleBindingUpdate(binding: RoleBinding, old: RoleBinding): FieldError[] {
  return [...validateBinding(binding, false), ...roleRefChanged(binding, old)];
}
