import type { ValidatingWebhook } from '../admissionregistration/types.ts';
import type { MatchAttributes, NamespaceLookup, RuleMatch } from './match-attributes.ts';
import { matchRules } from './match-rules.ts';
import { matchesNamespaceSelector, matchesObjectSelectorOrError } from './selectors.ts';

/** The outcome of matching one webhook against a request, before its matchConditions. */
export type WebhookMatch =
  | { readonly matches: false; readonly error?: undefined }
  /** A selector failed (404 namespace not found, 500 bad selector) on a request the rules cover: kube fails the call. */
  | { readonly matches: false; readonly error: Error }
  | ({ readonly matches: true; readonly error?: undefined } & RuleMatch);

const NO_MATCH: WebhookMatch = Object.freeze({ matches: false });

/**
 * kube's webhook ShouldCallHook up to matchConditions: namespace and object selectors (a miss ends it), then the rules
 * with the webhook's matchPolicy; selector errors are reported only for requests the rules cover. A match tells the
 * resource and kind (another served version's under Equivalent) the webhook is to see the request as.
 */
export function matchWebhook(
  hook: Pick<ValidatingWebhook, 'rules' | 'matchPolicy' | 'namespaceSelector' | 'objectSelector'>,
  attrs: MatchAttributes,
  lookup: NamespaceLookup,
): WebhookMatch {
  const ns = matchesNamespaceSelector(hook.namespaceSelector, attrs, lookup);
  if (ns === false) return NO_MATCH;
  const obj = matchesObjectSelectorOrError(hook.objectSelector, attrs);
  if (obj === false) return NO_MATCH;
  const r = matchRules(hook.rules, hook.matchPolicy, attrs);
  if (r === undefined) return NO_MATCH;
  if (ns instanceof Error) return { matches: false, error: ns };
  if (obj instanceof Error) return { matches: false, error: obj };
  return { matches: true, ...r };
}

const CONFIGURATION_KINDS = new Set([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);

/**
 * kube's IsExemptAdmissionConfigurationResource: webhooks and policies are never called for writes of the objects
 * that configure them, so that a broken webhook can always be removed.
 */
export function isExemptAdmissionConfigurationResource(attrs: Pick<MatchAttributes, 'kind'>): boolean {
  return attrs.kind.group === 'admissionregistration.k8s.io' && CONFIGURATION_KINDS.has(attrs.kind.kind);
}
