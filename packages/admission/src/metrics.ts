import type { Operation } from './attributes.ts';

/** kube's admission step type label: `admit` for mutating, `validate` for validating. */
export type AdmissionStepType = 'admit' | 'validate';

/** The `error_type` label of apiserver_admission_webhook_rejection_count. */
export type WebhookRejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

/** The `enforcement_action` label of apiserver_validating_admission_policy_check_total. */
export type PolicyEnforcementAction = 'deny' | 'warn' | 'audit' | 'allow' | 'error';

/** The `error_type` label of the policy check metrics (kube's ValidationErrorType). */
export type PolicyCheckErrorType = 'compile_error' | 'invalid_error' | 'out_of_budget' | 'no_error';

/**
 * kube's admission metrics (k8s.io/apiserver/pkg/admission/metrics), by what they observe; server-core
 * implements them with prom-client under kube's names. Durations are in seconds.
 */
export interface AdmissionMetrics {
  /** apiserver_admission_step_admission_duration_seconds{type,operation,rejected} */
  observeStep(type: AdmissionStepType, operation: Operation, rejected: boolean, seconds: number): void;
  /** apiserver_admission_controller_admission_duration_seconds{name,type,operation,rejected} */
  observeController(name: string, type: AdmissionStepType, operation: Operation, rejected: boolean, seconds: number): void;
  /** apiserver_admission_webhook_admission_duration_seconds{name,type,operation,rejected} */
  observeWebhook(name: string, type: AdmissionStepType, operation: Operation, rejected: boolean, seconds: number): void;
  /** apiserver_admission_webhook_request_total{name,type,operation,code,rejected} */
  webhookRequest(name: string, type: AdmissionStepType, operation: Operation, code: number, rejected: boolean): void;
  /** apiserver_admission_webhook_rejection_count{name,type,operation,error_type,rejection_code} */
  webhookRejection(
    name: string,
    type: AdmissionStepType,
    operation: Operation,
    errorType: WebhookRejectionErrorType,
    rejectionCode: number,
  ): void;
  /** apiserver_admission_webhook_fail_open_count{name,type} */
  webhookFailOpen(name: string, type: AdmissionStepType): void;
  /**
   * apiserver_validating_admission_policy_check_total and _check_duration_seconds
   * {policy,policy_binding,error_type,enforcement_action}. `errorType` defaults to `no_error`, or to
   * `invalid_error` for the action `error`, which is recorded as kube does a failed check under
   * failurePolicy Fail: enforcement_action `deny` (under Ignore, pass `allow` with the errorType).
   */
  policyCheck(
    policy: string,
    binding: string,
    enforcementAction: PolicyEnforcementAction,
    seconds: number,
    errorType?: PolicyCheckErrorType,
  ): void;
}

const noop = (): void => {};

/** Metrics that record nothing: the default where no registry is given. */
export const noopAdmissionMetrics: AdmissionMetrics = {
  observeStep: noop,
  observeController: noop,
  observeWebhook: noop,
  webhookRequest: noop,
  webhookRejection: noop,
  webhookFailOpen: noop,
  policyCheck: noop,
};
