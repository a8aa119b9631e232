import type { KubeObject, MetaV1LabelSelector, ObjectMeta } from '@kapi/apimachinery';

/**
 * admissionregistration.k8s.io/v1 objects exactly as kube's JSON carries them (k8s.io/api/admissionregistration/v1).
 * Optional fields are the ones kube may leave out; defaulting (the resource definitions) fills failurePolicy,
 * matchPolicy, selectors, timeoutSeconds, reinvocationPolicy and rule scopes on every stored object.
 */

export const ADMISSION_REGISTRATION_GROUP = 'admissionregistration.k8s.io';
export const ADMISSION_REGISTRATION_VERSION = 'v1';
export const ADMISSION_REGISTRATION_API_VERSION = `${ADMISSION_REGISTRATION_GROUP}/${ADMISSION_REGISTRATION_VERSION}`;

/** v1.OperationType; '*' stands for all of them. */
export type OperationType = '*' | 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
/** v1.ScopeType. */
export type ScopeType = '*' | 'Cluster' | 'Namespaced';
export type FailurePolicyType = 'Ignore' | 'Fail';
export type MatchPolicyType = 'Exact' | 'Equivalent';
export type SideEffectClass = 'Unknown' | 'None' | 'Some' | 'NoneOnDryRun';
export type ReinvocationPolicyType = 'Never' | 'IfNeeded';
export type ValidationAction = 'Deny' | 'Warn' | 'Audit';
export type ParameterNotFoundActionType = 'Allow' | 'Deny';

/** v1.Rule. */
export interface Rule {
  apiGroups?: string[];
  apiVersions?: string[];
  /** 'r', 'r/s', '*', '*' + '/s', 'r/*', '*' + '/*'. */
  resources?: string[];
  scope?: ScopeType;
}

/** v1.RuleWithOperations. */
export interface RuleWithOperations extends Rule {
  operations?: OperationType[];
}

/** v1.NamedRuleWithOperations: a rule that may also be limited to names. */
export interface NamedRuleWithOperations extends RuleWithOperations {
  resourceNames?: string[];
}

/** v1.ServiceReference. */
export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  /** Default 443. */
  port?: number;
}

/** v1.WebhookClientConfig: exactly one of url and service. */
export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** PEM bundle, base64 in JSON. */
  caBundle?: string;
}

/** v1.MatchCondition. */
export interface MatchCondition {
  name: string;
  expression: string;
}

/** v1.ValidatingWebhook. */
export interface ValidatingWebhook {
  name: string;
  clientConfig: WebhookClientConfig;
  rules?: RuleWithOperations[];
  failurePolicy?: FailurePolicyType;
  matchPolicy?: MatchPolicyType;
  namespaceSelector?: MetaV1LabelSelector;
  objectSelector?: MetaV1LabelSelector;
  sideEffects?: SideEffectClass;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: MatchCondition[];
}

/** v1.MutatingWebhook. */
export interface MutatingWebhook extends ValidatingWebhook {
  reinvocationPolicy?: ReinvocationPolicyType;
}

export interface ValidatingWebhookConfiguration extends KubeObject {
  apiVersion: string;
  kind: 'ValidatingWebhookConfiguration';
  metadata: ObjectMeta;
  webhooks?: ValidatingWebhook[];
}

export interface MutatingWebhookConfiguration extends KubeObject {
  apiVersion: string;
  kind: 'MutatingWebhookConfiguration';
  metadata: ObjectMeta;
  webhooks?: MutatingWebhook[];
}

/** v1.MatchResources. */
export interface MatchResources {
  namespaceSelector?: MetaV1LabelSelector;
  objectSelector?: MetaV1LabelSelector;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: MatchPolicyType;
}

/** v1.ParamKind. */
export interface ParamKind {
  apiVersion?: string;
  kind?: string;
}

/** v1.ParamRef. */
export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: MetaV1LabelSelector;
  parameterNotFoundAction?: ParameterNotFoundActionType;
}

/** v1.Validation. */
export interface Validation {
  expression: string;
  message?: string;
  /** A metav1.StatusReason: Unauthorized, Forbidden, Invalid, RequestEntityTooLarge. */
  reason?: string;
  messageExpression?: string;
}

/** v1.AuditAnnotation. */
export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

/** v1.Variable. */
export interface Variable {
  name: string;
  expression: string;
}

export interface ValidatingAdmissionPolicySpec {
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  validations?: Validation[];
  failurePolicy?: FailurePolicyType;
  auditAnnotations?: AuditAnnotation[];
  matchConditions?: MatchCondition[];
  variables?: Variable[];
}

/** v1.ExpressionWarning. */
export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

/** v1.TypeChecking. */
export interface TypeChecking {
  expressionWarnings?: ExpressionWarning[];
}

/** metav1.Condition. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface ValidatingAdmissionPolicyStatus {
  observedGeneration?: number;
  typeChecking?: TypeChecking;
  conditions?: Condition[];
}

export interface ValidatingAdmissionPolicy extends KubeObject {
  apiVersion: string;
  kind: 'ValidatingAdmissionPolicy';
  metadata: ObjectMeta;
  spec?: ValidatingAdmissionPolicySpec;
  status?: ValidatingAdmissionPolicyStatus;
}

export interface ValidatingAdmissionPolicyBindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions?: ValidationAction[];
}

export interface ValidatingAdmissionPolicyBinding extends KubeObject {
  apiVersion: string;
  kind: 'ValidatingAdmissionPolicyBinding';
  metadata: ObjectMeta;
  spec?: ValidatingAdmissionPolicyBindingSpec;
}
