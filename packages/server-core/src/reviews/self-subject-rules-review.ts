import { newBadRequest } from '@kapi/apimachinery';
import { AlwaysAllowAuthorizer, type Authorizer, rulesOf } from '@kapi/authz';
import type { VirtualResource } from '../server/virtual-resource.ts';
import { AUTHORIZATION_GROUP } from './self-subject-access-review.ts';

type Json = Record<string, unknown>;

/**
 * authorization.k8s.io/v1 SelfSubjectRulesReview (`kubectl auth can-i --list`): what the requesting user may do in
 * spec.namespace, from the authorizer's `rulesFor` (AlwaysAllow's when the server has no authorizer; no rules and
 * incomplete for an authorizer without one). As kube's REST, the answer carries an empty spec and the status
 * {resourceRules, nonResourceRules, incomplete, evaluationError}; an empty namespace is a 400.
 */
export function selfSubjectRulesReviewResource(authorizer: Authorizer = new AlwaysAllowAuthorizer()): VirtualResource {
  return {
    group: AUTHORIZATION_GROUP,
    version: 'v1',
    resource: 'selfsubjectrulesreviews',
    singularName: 'selfsubjectrulesreview',
    kind: 'SelfSubjectRulesReview',
    namespaced: false,
    verbs: ['create'],
    async create(body, { user }) {
      const spec = (body as Json).spec;
      const namespace = spec !== null && typeof spec === 'object' ? (spec as Json).namespace : undefined;
      if (typeof namespace !== 'string' || namespace === '') throw newBadRequest('no namespace on request');
      const rules = await rulesOf(authorizer, user, namespace);
      const status: Json = {
        resourceRules: rules.resourceRules.map((r) => {
          const out: Json = { verbs: [...r.verbs] };
          if (r.apiGroups.length) out.apiGroups = [...r.apiGroups];
          if (r.resources.length) out.resources = [...r.resources];
          if (r.resourceNames?.length) out.resourceNames = [...r.resourceNames];
          return out;
        }),
        nonResourceRules: rules.nonResourceRules.map((r) => {
          const out: Json = { verbs: [...r.verbs] };
          if (r.nonResourceURLs.length) out.nonResourceURLs = [...r.nonResourceURLs];
          return out;
        }),
        incomplete: rules.incomplete,
      };
      if (rules.error) status.evaluationError = rules.error.message;
      return {
        kind: 'SelfSubjectRulesReview',
        apiVersion: `${AUTHORIZATION_GROUP}/v1`,
        metadata: { creationTimestamp: null },
        spec: {},
        status,
      };
    },
  };
}
