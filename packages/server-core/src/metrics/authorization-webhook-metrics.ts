import { Counter, Histogram, Registry } from 'prom-client';

/** prometheus.DefBuckets, which kube's webhook duration histogram uses. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * What a webhook authorizer reports (kube's WebhookMetrics). `result` is kube's: "success" (a well-formed answer),
 * "error" (an invalid answer or a failed call), "timeout", "canceled"; a fail-open is "error" or "timeout".
 */
export interface AuthorizationWebhookMetrics {
  /** One round trip to the webhook called `name`, and how long it took. */
  onEvaluation(name: string, result: string, seconds: number): void;
  /** A timeout or error that ended in NoOpinion (the request was not canceled). */
  onFailOpen(name: string, result: string): void;
}

const registered = new WeakMap<Registry, AuthorizationWebhookMetrics>();

/**
 * kube's authorization webhook metrics (k8s.io/apiserver/plugin/pkg/authorizer/webhook/metrics) on `registry`:
 * apiserver_authorization_webhook_evaluations_total, apiserver_authorization_webhook_duration_seconds and
 * apiserver_authorization_webhook_evaluations_fail_open_total, each by webhook name and result. Registered once per
 * registry (a second call returns the same object), so every webhook authorizer of a server can share them, e.g.
 * `authorizationWebhookMetrics(server.metrics.registry)`.
 */
export function authorizationWebhookMetrics(registry: Registry = new Registry()): AuthorizationWebhookMetrics {
  const existing = registered.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const evaluations = new Counter({
    name: 'apiserver_authorization_webhook_evaluations_total',
    help: 'Round-trips to authorization webhooks.',
    labelNames: ['name', 'result'],
    registers,
  });
  const duration = new Histogram({
    name: 'apiserver_authorization_webhook_duration_seconds',
    help: 'Request latency in seconds.',
    labelNames: ['name', 'result'],
    buckets: [...DEFAULT_BUCKETS],
    registers,
  });
  const failOpen = new Counter({
    name: 'apiserver_authorization_webhook_evaluations_fail_open_total',
    help: 'NoOpinion results due to webhook timeout or error.',
    labelNames: ['name', 'result'],
    registers,
  });
  const metrics: AuthorizationWebhookMetrics = {
    onEvaluation(name, result, seconds) {
      evaluations.inc({ name, result });
      duration.observe({ name, result }, seconds);
    },
    onFailOpen(name, result) {
      failOpen.inc({ name, result });
    },
  };
  registered.set(registry, metrics);
  return metrics;
}
