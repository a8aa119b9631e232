import type { KubeObject, MetaV1LabelSelector } from '@kapi/apimachinery';
import { AGE_COLUMN, checkConditionTimes, defaultStrategy, defineResource, type ResourceDefinition } from '@kapi/registry';
import { admissionExpressionChecker } from './cel-expression-checker.ts';
import { defaultValidatingAdmissionPolicy, defaultValidatingAdmissionPolicyBinding } from './defaults.ts';
import { validatingAdmissionPolicyBindingSchema, validatingAdmissionPolicySchema } from './schemas.ts';
import { guardedValidation, guardShape } from './shape-guard.ts';
import { ADMISSION_REGISTRATION_GROUP, type ValidatingAdmissionPolicy, type ValidatingAdmissionPolicyBinding } from './types.ts';
import {
  type ExpressionChecker,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicyStatus,
  validateValidatingAdmissionPolicyUpdate,
} from './validation.ts';
import { API_EXTENSIONS_CATEGORY } from './webhook-configuration-resources.ts';

/**
 * A status write: conditions' lastTransitionTime are read as metav1.Time first, as kube's decoder reads them (another
 * string is a 400, never stored for Go clients to fail decoding the policy), then kube's status validation.
 */
function validateStatus(policy: ValidatingAdmissionPolicy): ReturnType<typeof validateValidatingAdmissionPolicyStatus> {
  checkConditionTimes('ValidatingAdmissionPolicy', 'v1', policy.status?.conditions);
  return validateValidatingAdmissionPolicyStatus(policy.status);
}

/**
 * pkg/registry/admissionregistration/validatingadmissionpolicy's strategy: status is the status subresource's (a new
 * policy starts with `status: {}`, as Go writes the empty struct), generation 1 and bumped when the spec changes;
 * the status subresource validates the status alone. `checker` compiles the policy's CEL as kube's validation does.
 */
export function validatingAdmissionPolicyResource(checker?: ExpressionChecker): ResourceDefinition<ValidatingAdmissionPolicy> {
  const base = defaultStrategy<KubeObject>({ namespaced: false, subresources: { status: true }, selectableFields: [] });
  return defineResource({
    group: ADMISSION_REGISTRATION_GROUP,
    kind: 'ValidatingAdmissionPolicy',
    plural: 'validatingadmissionpolicies',
    namespaced: false,
    categories: [API_EXTENSIONS_CATEGORY],
    versions: [{ name: 'v1', schema: validatingAdmissionPolicySchema }],
    subresources: { status: true },
    printerColumns: [
      {
        name: 'Validations',
        type: 'integer',
        jsonPath: '.spec.validations',
        description: 'Validations indicates the number of validation rules defined in this configuration',
        value: (o) => ((o as ValidatingAdmissionPolicy).spec?.validations ?? []).length,
      },
      {
        name: 'ParamKind',
        type: 'string',
        jsonPath: '.spec.paramKind',
        description: 'ParamKind specifies the kind of resources used to parameterize this policy',
        value: (o) => {
          const pk = (o as ValidatingAdmissionPolicy).spec?.paramKind;
          return pk ? `${pk.apiVersion ?? ''}/${pk.kind ?? ''}` : '<unset>';
        },
      },
      AGE_COLUMN,
    ],
    strategy: {
      prepareForCreate: (ctx, obj) => {
        guardShape(validatingAdmissionPolicySchema, obj, () => defaultValidatingAdmissionPolicy(obj), undefined);
        base.prepareForCreate(ctx, obj);
        obj.status = {};
      },
      prepareForUpdate: (ctx, obj, old) => {
        guardShape(validatingAdmissionPolicySchema, obj, () => defaultValidatingAdmissionPolicy(obj), undefined);
        base.prepareForUpdate(ctx, obj, old);
      },
      // Guarded: a body of the wrong shape is refused by the schema's type errors, not a 500 from validation.
      validate: (_ctx, obj) =>
        guardedValidation(validatingAdmissionPolicySchema, obj, () =>
          validateValidatingAdmissionPolicy(obj as ValidatingAdmissionPolicy, checker),
        ),
      validateUpdate: (ctx, obj, old) =>
        guardedValidation(validatingAdmissionPolicySchema, obj, () =>
          ctx.subresource === 'status'
            ? validateStatus(obj as ValidatingAdmissionPolicy)
            : validateValidatingAdmissionPolicyUpdate(obj as ValidatingAdmissionPolicy, old as ValidatingAdmissionPolicy, checker),
        ),
      warningsOnCreate: () => [],
      warningsOnUpdate: () => [],
      allowCreateOnUpdate: () => false,
      allowUnconditionalUpdate: () => false,
    },
  }) as unknown as ResourceDefinition<ValidatingAdmissionPolicy>;
}

function paramRefCell(o: KubeObject): string {
  const pr = (o as ValidatingAdmissionPolicyBinding).spec?.paramRef;
  if (!pr) return '<unset>';
  if (pr.name) return pr.namespace ? `${pr.namespace}/${pr.name}` : `*/${pr.name}`;
  if (pr.selector) return goLabelSelectorString(pr.selector);
  return '<unset>';
}

/**
 * metav1.LabelSelector's String() (gogo-protobuf generated), which kube's printer shows for a selector paramRef:
 * `&LabelSelector{MatchLabels:map[string]string{a: b,},MatchExpressions:[]LabelSelectorRequirement{…},}`, labels
 * sorted by key, each requirement `LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],}`.
 */
function goLabelSelectorString(selector: MetaV1LabelSelector): string {
  const labels = Object.keys(selector.matchLabels ?? {})
    .sort()
    .map((k) => `${k}: ${selector.matchLabels?.[k] ?? ''},`)
    .join('');
  const requirements = (selector.matchExpressions ?? [])
    .map((r) => `LabelSelectorRequirement{Key:${r.key ?? ''},Operator:${r.operator ?? ''},Values:[${(r.values ?? []).join(' ')}],},`)
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${requirements}},}`;
}

/** pkg/registry/admissionregistration/validatingadmissionpolicybinding's strategy: generation 1, bumped when the spec changes. */
export function validatingAdmissionPolicyBindingResource(): ResourceDefinition<ValidatingAdmissionPolicyBinding> {
  const base = defaultStrategy<KubeObject>({ namespaced: false, subresources: { status: false }, selectableFields: [] });
  return defineResource({
    group: ADMISSION_REGISTRATION_GROUP,
    kind: 'ValidatingAdmissionPolicyBinding',
    plural: 'validatingadmissionpolicybindings',
    namespaced: false,
    categories: [API_EXTENSIONS_CATEGORY],
    versions: [{ name: 'v1', schema: validatingAdmissionPolicyBindingSchema }],
    printerColumns: [
      {
        name: 'PolicyName',
        type: 'string',
        jsonPath: '.spec.policyName',
        description: 'PolicyName indicates the policy definition which the policy binding binded to',
        value: (o) => (o as ValidatingAdmissionPolicyBinding).spec?.policyName ?? '',
      },
      {
        name: 'ParamRef',
        type: 'string',
        jsonPath: '.spec.paramRef',
        description: 'ParamRef indicates the param resource which sets the configration param',
        value: paramRefCell,
      },
      AGE_COLUMN,
    ],
    strategy: {
      prepareForCreate: (ctx, obj) => {
        guardShape(validatingAdmissionPolicyBindingSchema, obj, () => defaultValidatingAdmissionPolicyBinding(obj), undefined);
        base.prepareForCreate(ctx, obj);
      },
      prepareForUpdate: (ctx, obj, old) => {
        guardShape(validatingAdmissionPolicyBindingSchema, obj, () => defaultValidatingAdmissionPolicyBinding(obj), undefined);
        base.prepareForUpdate(ctx, obj, old);
      },
      validate: (_ctx, obj) =>
        guardedValidation(validatingAdmissionPolicyBindingSchema, obj, () =>
          validateValidatingAdmissionPolicyBinding(obj as ValidatingAdmissionPolicyBinding),
        ),
      validateUpdate: (_ctx, obj) =>
        guardedValidation(validatingAdmissionPolicyBindingSchema, obj, () =>
          validateValidatingAdmissionPolicyBinding(obj as ValidatingAdmissionPolicyBinding),
        ),
      warningsOnCreate: () => [],
      warningsOnUpdate: () => [],
      allowCreateOnUpdate: () => false,
      allowUnconditionalUpdate: () => false,
    },
  }) as unknown as ResourceDefinition<ValidatingAdmissionPolicyBinding>;
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy; its CEL compiled on write, as kube does. */
export const ValidatingAdmissionPolicyResource = validatingAdmissionPolicyResource(admissionExpressionChecker());
/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding. */
export const ValidatingAdmissionPolicyBindingResource = validatingAdmissionPolicyBindingResource();
