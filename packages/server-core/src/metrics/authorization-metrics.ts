import type { AuthorizationAttributes, AuthorizationResult, Authorizer, Decision } from '@kapi/authz';
import { Counter, Histogram, type Registry } from 'prom-client';
import { AUTHENTICATION_DURATION_BUCKETS } from './authentication-metrics.ts';

/** How the authorization filter's check ended, as kube's labels. */
export type AuthorizationResultLabel = 'allowed' | 'denied' | 'no-opinion' | 'error';

/** The labels apiserver_authorization_decisions_total gives an authorizer: its type and its name. */
export interface AuthorizerLabels {
  readonly type: string;
  readonly name: string;
}

/**
 * The labels kube gives a mode of --authorization-mode (its non-structured configuration): the mode as type, and as
 * name the mode lower-cased (GetNameForAuthorizerMode), the webhook's being "default". E.g. RBAC → {RBAC, rbac}.
 */
export function authorizerLabelsForMode(mode: string): AuthorizerLabels {
  return { type: mode, name: mode === 'Webhook' ? 'default' : mode.toLowerCase() };
}

/**
 * kube's authorization metrics: the authorization filter's authorization_attempts_total and
 * authorization_duration_seconds by result (k8s.io/apiserver/pkg/endpoints/filters/metrics.go), and
 * apiserver_authorization_decisions_total, the terminal decisions (allowed, denied; no opinion is not one) of each
 * authorizer by type and name (k8s.io/apiserver/pkg/authorization/metrics). Served with the server's other metrics.
 */
export class AuthorizationMetrics {
  readonly attempts: Counter<'result'>;
  readonly duration: Histogram<'result'>;
  readonly decisions: Counter<'type' | 'name' | 'decision'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.attempts = new Counter({
      name: 'authorization_attempts_total',
      help: "Counter of authorization attempts broken down by result. It can be either 'allowed', 'denied', 'no-opinion' or 'error'.",
      labelNames: ['result'],
      registers,
    });
    this.duration = new Histogram({
      name: 'authorization_duration_seconds',
      help: 'Authorization duration in seconds broken out by result.',
      labelNames: ['result'],
      // kube's ExponentialBuckets(0.001, 2, 15), as authentication's.
      buckets: [...AUTHENTICATION_DURATION_BUCKETS],
      registers,
    });
    this.decisions = new Counter({
      name: 'apiserver_authorization_decisions_total',
      help: 'Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
      labelNames: ['type', 'name', 'decision'],
      registers,
    });
  }

  /** One check by the authorization filter: how it ended and how long the authorizer took. */
  observe(result: AuthorizationResultLabel, seconds: number): void {
    this.attempts.inc({ result });
    this.duration.observe({ result }, seconds);
  }

  /** kube's RecordAuthorizationDecision: Allow counts as "allowed", Deny as "denied", NoOpinion (not terminal) not at all. */
  recordDecision(labels: AuthorizerLabels, decision: Decision): void {
    if (decision === 'NoOpinion') return;
    this.decisions.inc({ type: labels.type, name: labels.name, decision: decision === 'Allow' ? 'allowed' : 'denied' });
  }
}

/**
 * kube's InstrumentedAuthorizer: `authorizer` with its terminal decisions counted in
 * apiserver_authorization_decisions_total under `labels`, wherever it is asked (requests, access reviews,
 * impersonation). Wrap each mode of a union with it to count per mode, and leave the server's `authorizerLabels` unset
 * so that the filter does not count the union's decision again.
 */
export function instrumentedAuthorizer(
  labels: AuthorizerLabels,
  authorizer: Authorizer,
  metrics: Pick<AuthorizationMetrics, 'recordDecision'>,
): Authorizer {
  const instrumented: Authorizer = {
    async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
      const result = await authorizer.authorize(attrs);
      metrics.recordDecision(labels, result.decision);
      return result;
    },
  };
  if (authorizer.rulesFor) instrumented.rulesFor = authorizer.rulesFor.bind(authorizer);
  return instrumented;
}
