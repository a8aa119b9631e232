import type { AdmissionMetrics } from '@kapi/admission';
import { Counter, Histogram, Registry, Summary } from 'prom-client';

/** kube's buckets for the step and controller histograms: 5 ms to 2.5 s. */
const ADMISSION_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
/** kube's webhook histogram reaches further (webhooks time out at 30 s at most). */
const WEBHOOK_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25];
/** kube's policy check buckets, from a single CEL access (~180 ns) to an expression near the cost limit. */
const POLICY_BUCKETS = [0.0000005, 0.001, 0.01, 0.1, 1.0];

const registered = new WeakMap<Registry, AdmissionMetrics>();

/** kube truncates HTTP codes above 600 to keep the label's cardinality bounded. */
const code = (c: number): string => String(c > 600 ? 600 : c);

/**
 * kube's admission metrics (k8s.io/apiserver/pkg/admission/metrics and the validating admission policy's) on
 * `registry`, under kube's names, help texts, labels and buckets: the step, controller and webhook duration histograms
 * (and the step's summary), the webhook request, rejection and fail-open counters, and the policy check counter and
 * histogram. Registered once per registry (a second call returns the same object), so the chain and every plugin of
 * a server share them:
 *
 * @example
 * const metrics = new APIServerMetrics();
 * const admission = admissionMetrics(metrics.registry);
 * const chain = plugins.buildChain({ metrics: admission }); // webhooks and policies get `metrics: admission` too
 * new GenericAPIServer({ storage, resources, metrics, admission: chain });
 */
export function admissionMetrics(registry: Registry = new Registry()): AdmissionMetrics {
  const existing = registered.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const step = new Histogram({
    name: 'apiserver_admission_step_admission_duration_seconds',
    help: 'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
    labelNames: ['type', 'operation', 'rejected'],
    buckets: ADMISSION_BUCKETS,
    registers,
  });
  const stepSummary = new Summary({
    name: 'apiserver_admission_step_admission_duration_seconds_summary',
    help: 'Admission sub-step latency summary in seconds, broken out for each operation and API resource and step type (validate or admit).',
    labelNames: ['type', 'operation', 'rejected'],
    // client_golang's defaults: no quantiles (sum and count only), observations kept 5 h in 5 age buckets.
    percentiles: [],
    maxAgeSeconds: 5 * 3600,
    ageBuckets: 5,
    registers,
  });
  const controller = new Histogram({
    name: 'apiserver_admission_controller_admission_duration_seconds',
    help: 'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: ADMISSION_BUCKETS,
    registers,
  });
  const webhook = new Histogram({
    name: 'apiserver_admission_webhook_admission_duration_seconds',
    help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: WEBHOOK_BUCKETS,
    registers,
  });
  const webhookRejection = new Counter({
    name: 'apiserver_admission_webhook_rejection_count',
    help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
    registers,
  });
  const webhookFailOpen = new Counter({
    name: 'apiserver_admission_webhook_fail_open_count',
    help: 'Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).',
    labelNames: ['name', 'type'],
    registers,
  });
  const webhookRequest = new Counter({
    name: 'apiserver_admission_webhook_request_total',
    help: 'Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['name', 'type', 'operation', 'code', 'rejected'],
    registers,
  });
  const policyCheck = new Counter({
    name: 'apiserver_validating_admission_policy_check_total',
    help: 'Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.',
    labelNames: ['policy', 'policy_binding', 'error_type', 'enforcement_action'],
    registers,
  });
  const policyLatency = new Histogram({
    name: 'apiserver_validating_admission_policy_check_duration_seconds',
    help: 'Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.',
    labelNames: ['policy', 'policy_binding', 'error_type', 'enforcement_action'],
    buckets: POLICY_BUCKETS,
    registers,
  });

  const metrics: AdmissionMetrics = {
    observeStep(type, operation, rejected, seconds) {
      const labels = { type, operation, rejected: String(rejected) };
      step.observe(labels, seconds);
      stepSummary.observe(labels, seconds);
    },
    observeController(name, type, operation, rejected, seconds) {
      controller.observe({ name, type, operation, rejected: String(rejected) }, seconds);
    },
    observeWebhook(name, type, operation, rejected, seconds) {
      webhook.observe({ name, type, operation, rejected: String(rejected) }, seconds);
    },
    webhookRequest(name, type, operation, status, rejected) {
      webhookRequest.inc({ name, type, operation, code: code(status), rejected: String(rejected) });
    },
    webhookRejection(name, type, operation, errorType, rejectionCode) {
      webhookRejection.inc({ name, type, operation, error_type: errorType, rejection_code: code(rejectionCode) });
    },
    webhookFailOpen(name, type) {
      webhookFailOpen.inc({ name, type });
    },
    policyCheck(policy, binding, enforcementAction, seconds, errorType) {
      // kube has no "error" action: a check that failed to evaluate counts as a denial with its error type.
      const labels = {
        policy,
        policy_binding: binding,
        error_type: errorType ?? (enforcementAction === 'error' ? 'invalid_error' : 'no_error'),
        enforcement_action: enforcementAction === 'error' ? 'deny' : enforcementAction,
      };
      policyCheck.inc(labels);
      policyLatency.observe(labels, seconds);
    },
  };
  registered.set(registry, metrics);
  return metrics;
}
