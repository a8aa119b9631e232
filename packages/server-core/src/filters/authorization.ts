import { newForbidden, newInternalError } from '@kapi/apimachinery';
import { type AuthorizationResult, type Authorizer, forbiddenMessage } from '@kapi/authz';
import { addAuditAnnotation, writeAuditedStatus } from '../audit/context.ts';
import type { AuthorizationMetrics, AuthorizationResultLabel, AuthorizerLabels } from '../metrics/authorization-metrics.ts';
import { authorizerAttributesFrom } from './authorizer-attributes.ts';
import type { Filter } from './context.ts';

export interface AuthorizationOptions {
  authorizer: Authorizer;
  /** Where attempts (authorization_attempts_total, authorization_duration_seconds) and decisions are counted. */
  metrics?: AuthorizationMetrics;
  /**
   * The labels of the authorizer's terminal decisions in apiserver_authorization_decisions_total, e.g.
   * `authorizerLabelsForMode('RBAC')`. Unset: the filter counts none (an authorizer wrapped in instrumentedAuthorizer
   * counts its own).
   */
  labels?: AuthorizerLabels;
}

/** Audit annotation keys kube's authorization filter sets. */
export const DECISION_ANNOTATION = 'authorization.k8s.io/decision';
export const REASON_ANNOTATION = 'authorization.k8s.io/reason';

/**
 * kube's WithAuthorization: asks the authorizer about `ctx.user` doing `ctx.requestInfo`. Allow → on;
 * an authorizer error without an Allow → 500; anything else → kube's 403, e.g.
 * `configmaps "x" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "default"`.
 * The decision and reason are added to the audit event as kube does.
 */
export function withAuthorization(opts: AuthorizationOptions): Filter {
  return async (ctx, next) => {
    let attrs: ReturnType<typeof authorizerAttributesFrom>;
    try {
      attrs = authorizerAttributesFrom(ctx);
    } catch (err) {
      writeAuditedStatus(ctx, newInternalError(err));
      return;
    }
    let result: AuthorizationResult | undefined;
    let error: unknown;
    const started = performance.now();
    try {
      result = await opts.authorizer.authorize(attrs);
    } catch (err) {
      error = err;
    }
    if (opts.metrics) {
      opts.metrics.observe(resultLabel(result, error), (performance.now() - started) / 1000);
      if (result && opts.labels) opts.metrics.recordDecision(opts.labels, result.decision);
    }
    // An authorizer may allow despite evaluation errors, so the decision is checked first (as kube).
    if (result?.decision === 'Allow') {
      addAuditAnnotation(ctx, DECISION_ANNOTATION, 'allow');
      addAuditAnnotation(ctx, REASON_ANNOTATION, result.reason);
      await next();
      return;
    }
    if (error !== undefined) {
      addAuditAnnotation(ctx, REASON_ANNOTATION, 'internal error');
      writeAuditedStatus(ctx, newInternalError(error));
      return;
    }
    const reason = result?.reason ?? '';
    addAuditAnnotation(ctx, DECISION_ANNOTATION, 'forbid');
    addAuditAnnotation(ctx, REASON_ANNOTATION, reason);
    writeAuditedStatus(ctx, newForbidden({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, forbiddenMessage(attrs, reason)));
  };
}

/** kube's recordAuthorizationMetrics: an Allow is "allowed" even beside an error; otherwise an error is "error". */
function resultLabel(result: AuthorizationResult | undefined, error: unknown): AuthorizationResultLabel {
  if (result?.decision === 'Allow') return 'allowed';
  if (error !== undefined) return 'error';
  return result?.decision === 'Deny' ? 'denied' : 'no-opinion';
}
