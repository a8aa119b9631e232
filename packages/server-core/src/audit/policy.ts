import type { AuthorizationAttributes } from '@kapi/authz';
import type { AuditLevel } from './types.ts';

/**
 * Decides how much of a request to record, from what it does and who does it (kube's PolicyRuleEvaluator,
 * as a function). The attributes carry the authenticated user, before any impersonation.
 */
export type AuditPolicy = (attrs: AuthorizationAttributes) => AuditLevel;

/** Every request at one level. */
export function policyAtLevel(level: AuditLevel): AuditPolicy {
  return () => level;
}

const ORDER: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];

/** kube's Level.GreaterOrEqual. */
export function levelAtLeast(level: AuditLevel, min: AuditLevel): boolean {
  return ORDER.indexOf(level) >= ORDER.indexOf(min);
}
