import { type KubeObject, StatusError } from '@kapi/apimachinery';
import type { Authorizer } from '@kapi/authz';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidationAction } from '../admissionregistration/types.ts';
import type { AdmissionAttributes, Operation } from '../attributes.ts';
import { AuthorizationCache } from '../cel/authorizer.ts';
import { RequestConversions } from '../cel/evaluation.ts';
import type { EquivalentResource } from '../cel/request.ts';
import { admissionForbidden } from '../forbidden.ts';
import type { NamespaceLookup } from '../matching/match-attributes.ts';
import { matchesResources } from '../matching/match-resources.ts';
import type { AdmissionMetrics, PolicyCheckErrorType } from '../metrics.ts';
import type { ValidatingAdmission } from '../plugin.ts';
import { collectParams, paramKindString } from './collect-params.ts';
import { PolicyCompileCache } from './compiled-policy.ts';
import type { ParamSource } from './param-source.ts';
import { type PolicyDecision, validatePolicy } from './validator.ts';

export const VALIDATING_ADMISSION_POLICY_PLUGIN_NAME = 'ValidatingAdmissionPolicy';

/** The audit annotation kube publishes for a failed validation under the Audit action. */
export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';

/** kube's maxAuditAnnotationValueLength. */
const MAX_AUDIT_ANNOTATION_VALUE_LENGTH = 10 * 1024;

export interface ValidatingAdmissionPolicyOptions {
  /** The served policies (a Source: read at every request; an ObjectCache's list or a plain array). */
  readonly policies: () => readonly ValidatingAdmissionPolicy[];
  readonly bindings: () => readonly ValidatingAdmissionPolicyBinding[];
  readonly params: ParamSource;
  readonly namespaces: NamespaceLookup;
  /** Answers the expressions' `authorizer` checks; without one every check errs (`errored()` is true). */
  readonly authorizer?: Authorizer;
  readonly metrics?: AdmissionMetrics;
  /** Resources policies never see (kube's exclusion.Excluded(): the review kinds); default EXCLUDED_POLICY_RESOURCES. */
  readonly excludedResources?: readonly { readonly group: string; readonly resource: string }[];
}

/** kube's exclusion.Excluded(): resources the expression-based admission plugins ignore. */
export const EXCLUDED_POLICY_RESOURCES: readonly { readonly group: string; readonly resource: string }[] = [
  { group: 'authentication.k8s.io', resource: 'selfsubjectreviews' },
  { group: 'authentication.k8s.io', resource: 'tokenreviews' },
  { group: 'authorization.k8s.io', resource: 'localsubjectaccessreviews' },
  { group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' },
  { group: 'authorization.k8s.io', resource: 'selfsubjectrulesreviews' },
  { group: 'authorization.k8s.io', resource: 'subjectaccessreviews' },
];

const POLICY_RESOURCES = new Set([
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);

/** kube's isPolicyResource: policies and bindings are not subject to policies (no lock-out). */
function isPolicyResource(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === 'admissionregistration.k8s.io' && POLICY_RESOURCES.has(attrs.resource.resource);
}

interface Denial {
  readonly policy: string;
  readonly binding?: string;
  readonly message: string;
  readonly reason?: string;
}

const ALL_OPERATIONS = new Set<Operation>(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

const NO_AUTHORIZER: Authorizer = {
  authorize: async () => {
    throw new Error('no authorizer configured');
  },
};

/** kube's reasonToCode: the status code of a denial by its reason. */
export function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

/** kube's ErrorType: only an admitted evaluation has no error; a plain denial counts as `invalid_error` there too. */
function errorType(d: PolicyDecision): PolicyCheckErrorType {
  if (d.evaluation === 'admit') return 'no_error';
  if (d.message.startsWith('compilation')) return 'compile_error';
  if (d.message.startsWith('validation failed due to running out of cost budget')) return 'out_of_budget';
  return 'invalid_error';
}

/**
 * kube's ValidatingAdmissionPolicy admission plugin (k8s.io/apiserver/pkg/admission/plugin/policy/validating):
 * every policy whose matchConstraints match the request is evaluated for each of its bindings whose matchResources
 * match, once per param the binding's paramRef selects; a failed validation is denied, warned or audited as the
 * binding's validationActions say, and the first denial rejects the request with kube's message and status.
 */
export class ValidatingAdmissionPolicyPlugin implements ValidatingAdmission {
  readonly name = VALIDATING_ADMISSION_POLICY_PLUGIN_NAME;
  readonly #options: ValidatingAdmissionPolicyOptions;
  readonly #cache = new PolicyCompileCache();
  readonly #excluded: ReadonlySet<string>;

  constructor(options: ValidatingAdmissionPolicyOptions) {
    this.#options = options;
    this.#excluded = new Set((options.excludedResources ?? EXCLUDED_POLICY_RESOURCES).map((r) => `${r.resource}.${r.group}`));
  }

  handles(operation: Operation): boolean {
    return ALL_OPERATIONS.has(operation);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (isPolicyResource(attrs) || this.#excluded.has(`${attrs.resource.resource}.${attrs.resource.group}`)) return;
    const policies = this.#options.policies();
    const bindings = this.#options.bindings();
    if (policies.length === 0 || bindings.length === 0) return;
    const byPolicy = new Map<string, ValidatingAdmissionPolicyBinding[]>();
    for (const b of bindings) {
      const name = b.spec?.policyName;
      if (!name) continue;
      const list = byPolicy.get(name);
      if (list) list.push(b);
      else byPolicy.set(name, [b]);
    }
    this.#cache.retain(new Set(policies.map((p) => p.metadata.name ?? '')));

    const denials: Denial[] = [];
    // one authorization answer per check for the whole request, as kube's caching authorizer gives
    const authorization = new AuthorizationCache(this.#options.authorizer ?? NO_AUTHORIZER, attrs.userInfo);
    const conversions = new RequestConversions();
    for (const policy of policies) {
      const policyBindings = byPolicy.get(policy.metadata.name ?? '');
      if (!policyBindings) continue;
      await this.#dispatchPolicy(attrs, policy, policyBindings, denials, authorization, conversions);
    }
    if (denials.length > 0) throw this.#denial(attrs, denials[0] as Denial);
  }

  async #dispatchPolicy(
    attrs: AdmissionAttributes,
    policy: ValidatingAdmissionPolicy,
    bindings: readonly ValidatingAdmissionPolicyBinding[],
    denials: Denial[],
    authorization: AuthorizationCache,
    conversions: RequestConversions,
  ): Promise<void> {
    const policyName = policy.metadata.name ?? '';
    const failurePolicy = policy.spec?.failurePolicy ?? 'Fail';
    const configError = (err: Error | string, binding?: ValidatingAdmissionPolicyBinding) => {
      if (failurePolicy === 'Ignore') return;
      const what = binding ? 'binding' : 'policy';
      denials.push({
        policy: policyName,
        ...(binding ? { binding: binding.metadata.name ?? '' } : {}),
        message: `failed to configure ${what}: ${typeof err === 'string' ? err : err.message}`,
      });
    };

    const constraints = policy.spec?.matchConstraints;
    if (!constraints) return; // kube: a policy without matchConstraints matches nothing
    const definitionMatch = matchesResources(constraints, attrs, this.#options.namespaces);
    if (!definitionMatch.matches) return;

    // the object in the version the policy matched (matchPolicy Equivalent), converted once per policy
    let object = attrs.object;
    let oldObject = attrs.oldObject;
    let equivalent: EquivalentResource | undefined;
    if (definitionMatch.kind && definitionMatch.resource) {
      equivalent = { kind: definitionMatch.kind, resource: definitionMatch.resource };
      if (definitionMatch.equivalent && attrs.versions) {
        try {
          const version = definitionMatch.resource.version;
          object = object ? await attrs.versions.convert(object, version) : null;
          oldObject = oldObject ? await attrs.versions.convert(oldObject, version) : null;
        } catch (e) {
          configError(`failed to convert object version: ${e instanceof Error ? e.message : String(e)}`);
          return;
        }
      }
    }

    const paramKind = policy.spec?.paramKind;
    if (paramKind) {
      const kind = { apiVersion: paramKind.apiVersion ?? '', kind: paramKind.kind ?? '' };
      if (!this.#options.params.known(kind)) {
        configError(`failed to find resource referenced by paramKind: '${paramKindString(kind)}'`);
        return;
      }
    }

    const compiled = this.#cache.get(policy);
    const annotations = new Map<string, string[]>();
    for (const binding of bindings) {
      const bindingName = binding.metadata.name ?? '';
      const matchResources = binding.spec?.matchResources;
      if (matchResources) {
        const m = matchesResources(matchResources, attrs, this.#options.namespaces);
        if (m.error) {
          configError(m.error, binding);
          continue;
        }
        if (!m.matches) continue;
      }
      const params = collectParams(paramKind, binding.spec?.paramRef, this.#options.params, attrs.namespace);
      if (params instanceof Error) {
        configError(params, binding);
        continue;
      }
      let namespaceObject: KubeObject | null = null;
      // kube: a Namespace's own namespace is not looked up
      const isNamespace = attrs.kind.group === '' && attrs.kind.version === 'v1' && attrs.kind.kind === 'Namespace';
      if (attrs.namespace !== '' && !isNamespace) namespaceObject = this.#options.namespaces.getNamespace(attrs.namespace) ?? null;

      const actions: readonly ValidationAction[] = binding.spec?.validationActions ?? [];
      for (const param of params) {
        const started = performance.now();
        const result = await validatePolicy(compiled, {
          attrs,
          object,
          oldObject,
          ...(equivalent ? { equivalent } : {}),
          params: param,
          namespaceObject,
          authorization,
          conversions,
        });
        const seconds = (performance.now() - started) / 1000;
        for (const decision of result.decisions) {
          if (decision.action === 'admit') {
            if (decision.evaluation === 'error')
              this.#options.metrics?.policyCheck(policyName, bindingName, 'allow', seconds, errorType(decision));
            continue;
          }
          for (const action of actions) {
            switch (action) {
              case 'Deny':
                denials.push({
                  policy: policyName,
                  binding: bindingName,
                  message: decision.message,
                  ...(decision.reason ? { reason: decision.reason } : {}),
                });
                this.#options.metrics?.policyCheck(policyName, bindingName, 'deny', seconds, errorType(decision));
                break;
              case 'Audit':
                attrs.annotate?.(
                  VALIDATION_FAILURE_ANNOTATION,
                  JSON.stringify([
                    {
                      message: decision.message,
                      policy: binding.spec?.policyName ?? '',
                      binding: bindingName,
                      expressionIndex: decision.index,
                      validationActions: actions,
                    },
                  ]),
                );
                this.#options.metrics?.policyCheck(policyName, bindingName, 'audit', seconds, errorType(decision));
                break;
              case 'Warn':
                attrs.warn?.(
                  `Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${decision.message}`,
                );
                this.#options.metrics?.policyCheck(policyName, bindingName, 'warn', seconds, errorType(decision));
                break;
            }
          }
        }
        for (const annotation of result.auditAnnotations) {
          if (annotation.action === 'publish') {
            const value = annotation.value.slice(0, MAX_AUDIT_ANNOTATION_VALUE_LENGTH);
            const values = annotations.get(annotation.key);
            if (!values) annotations.set(annotation.key, [value]);
            else if (!values.includes(value)) values.push(value);
          } else if (annotation.action === 'error') {
            // under failurePolicy Fail an audit annotation that fails denies
            denials.push({ policy: policyName, binding: bindingName, message: annotation.error });
            this.#options.metrics?.policyCheck(policyName, bindingName, 'deny', seconds, 'invalid_error');
          }
        }
      }
    }
    for (const [key, values] of annotations) attrs.annotate?.(`${policyName}/${key}`, values.join(', '));
  }

  /** kube's denial: Forbidden's message shape, the validation's reason and its status code, the message as a cause. */
  #denial(attrs: AdmissionAttributes, denial: Denial): StatusError {
    const message =
      denial.binding !== undefined
        ? `ValidatingAdmissionPolicy '${denial.policy}' with binding '${denial.binding}' denied request: ${denial.message}`
        : `ValidatingAdmissionPolicy '${denial.policy}' denied request: ${denial.message}`;
    const forbidden = admissionForbidden(attrs, new Error(message));
    const reason = denial.reason || 'Invalid';
    const details = forbidden.status.details ?? {};
    return new StatusError({
      message: forbidden.status.message,
      reason,
      code: reasonToCode(reason),
      details: { ...details, causes: [...(details.causes ?? []), { message }] },
    });
  }
}
