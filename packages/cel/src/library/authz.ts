import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost } from '../cost.ts';

/** One authorization question an expression asks (kube's authorizer.AttributesRecord, without the user). */
export interface AuthzCheck {
  /** Set when asked through `authorizer.serviceAccount(ns, name)`: the question is about that service account. */
  readonly serviceAccount?: { readonly namespace: string; readonly name: string };
  readonly resourceRequest: boolean;
  readonly verb: string;
  /** Non-resource checks (`authorizer.path(p)`). */
  readonly path: string;
  readonly group: string;
  /** Always `*`, as kube asks. */
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly fieldSelector: string;
  readonly labelSelector: string;
}

/** What the authorizer answered. `error` is the text of an evaluation error (the decision is then usually NoOpinion). */
export interface AuthzDecision {
  readonly decision: 'Allow' | 'Deny' | 'NoOpinion';
  readonly reason: string;
  readonly error?: string;
}

/**
 * Answers a check synchronously (CEL evaluates synchronously): a caller with an asynchronous authorizer records the
 * checks on a first evaluation, resolves them, and evaluates again with the answers (see @kapi/admission's cel).
 */
export type AuthzDecide = (check: AuthzCheck) => AuthzDecision;

/** kube's cost of one `check` (k8s.io/apiserver/pkg/cel/library/cost.go): two checks per expression at most. */
export const AUTHZ_CHECK_COST = 350_000;

/** CEL type `kubernetes.authorization.Authorizer`: the `authorizer` variable of admission expressions. */
export class CelAuthorizer {
  readonly decide: AuthzDecide;
  readonly serviceAccount: { readonly namespace: string; readonly name: string } | undefined;
  /** `authorizer.requestResource`: a ResourceCheck of the request's group, resource, subresource, namespace and name. */
  readonly requestResource: ResourceCheck | undefined;

  constructor(
    decide: AuthzDecide,
    request?: {
      readonly group: string;
      readonly resource: string;
      readonly subresource: string;
      readonly namespace: string;
      readonly name: string;
    },
    serviceAccount?: { readonly namespace: string; readonly name: string },
  ) {
    this.decide = decide;
    this.serviceAccount = serviceAccount;
    this.requestResource = request ? new ResourceCheck(this, { ...request, fieldSelector: '', labelSelector: '' }) : undefined;
  }
}

export class PathCheck {
  readonly authorizer: CelAuthorizer;
  readonly path: string;
  constructor(authorizer: CelAuthorizer, path: string) {
    this.authorizer = authorizer;
    this.path = path;
  }
}

export class GroupCheck {
  readonly authorizer: CelAuthorizer;
  readonly group: string;
  constructor(authorizer: CelAuthorizer, group: string) {
    this.authorizer = authorizer;
    this.group = group;
  }
}

type ResourceFields = Pick<ResourceCheck, 'group' | 'resource' | 'subresource' | 'namespace' | 'name' | 'fieldSelector' | 'labelSelector'>;

export class ResourceCheck {
  readonly authorizer: CelAuthorizer;
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly fieldSelector: string;
  readonly labelSelector: string;

  constructor(authorizer: CelAuthorizer, fields: ResourceFields) {
    this.authorizer = authorizer;
    this.group = fields.group;
    this.resource = fields.resource;
    this.subresource = fields.subresource;
    this.namespace = fields.namespace;
    this.name = fields.name;
    this.fieldSelector = fields.fieldSelector;
    this.labelSelector = fields.labelSelector;
  }

  with(change: Partial<ResourceFields>): ResourceCheck {
    return new ResourceCheck(this.authorizer, { ...this, ...change });
  }
}

export class Decision {
  readonly answer: AuthzDecision;
  constructor(answer: AuthzDecision) {
    this.answer = answer;
  }
}

const AUTHORIZER = 'kubernetes.authorization.Authorizer';
const PATH_CHECK = 'kubernetes.authorization.PathCheck';
const GROUP_CHECK = 'kubernetes.authorization.GroupCheck';
const RESOURCE_CHECK = 'kubernetes.authorization.ResourceCheck';
const DECISION = 'kubernetes.authorization.Decision';

// apimachinery's ValidateServiceAccountName (a DNS-1123 subdomain) and ValidateNamespaceName (a DNS-1123 label)
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function ask(authorizer: CelAuthorizer, check: Omit<AuthzCheck, 'serviceAccount' | 'version'>): Decision {
  chargeCost(AUTHZ_CHECK_COST);
  const full: AuthzCheck = authorizer.serviceAccount
    ? { ...check, version: '*', serviceAccount: authorizer.serviceAccount }
    : { ...check, version: '*' };
  return new Decision(authorizer.decide(full));
}

/**
 * kube's authz library (k8s.io/apiserver/pkg/cel/library/authz.go) with its selectors extension:
 * `authorizer.path(p).check(verb)`, `authorizer.group(g).resource(r).subresource(s).namespace(ns).name(n).check(verb)`,
 * `authorizer.serviceAccount(ns, name)`, `authorizer.requestResource`, and the Decision's `allowed()`, `reason()`,
 * `errored()`, `error()`; `fieldSelector`/`labelSelector` pass their text to the check. A check costs 350,000.
 */
export function registerAuthz(env: Environment): void {
  env.registerType(DECISION, { ctor: Decision, fields: {} });
  env.registerType(PATH_CHECK, { ctor: PathCheck, fields: {} });
  env.registerType(RESOURCE_CHECK, { ctor: ResourceCheck, fields: {} });
  env.registerType(GROUP_CHECK, { ctor: GroupCheck, fields: {} });
  // requestResource is a variable named `authorizer.requestResource` in cel-go; a field reads the same here
  env.registerType(AUTHORIZER, { ctor: CelAuthorizer, fields: { requestResource: RESOURCE_CHECK } });

  env.registerFunction(`${AUTHORIZER}.path(string): ${PATH_CHECK}`, (a: CelAuthorizer, path: string) => {
    if (path.trim() === '') throw new Error('path must not be empty');
    return new PathCheck(a, path);
  });
  env.registerFunction(`${AUTHORIZER}.group(string): ${GROUP_CHECK}`, (a: CelAuthorizer, group: string) => new GroupCheck(a, group));
  env.registerFunction(
    `${AUTHORIZER}.serviceAccount(string, string): ${AUTHORIZER}`,
    (a: CelAuthorizer, namespace: string, name: string) => {
      if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) throw new Error('Invalid service account name');
      if (namespace.length > 63 || !DNS1123_LABEL.test(namespace)) throw new Error('Invalid service account namespace');
      return new CelAuthorizer(a.decide, undefined, { namespace, name });
    },
  );
  env.registerFunction(`${GROUP_CHECK}.resource(string): ${RESOURCE_CHECK}`, (g: GroupCheck, resource: string) => {
    if (resource.trim() === '') throw new Error('resource must not be empty');
    return new ResourceCheck(g.authorizer, {
      group: g.group,
      resource,
      subresource: '',
      namespace: '',
      name: '',
      fieldSelector: '',
      labelSelector: '',
    });
  });
  for (const field of ['subresource', 'namespace', 'name', 'fieldSelector', 'labelSelector'] as const) {
    env.registerFunction(`${RESOURCE_CHECK}.${field}(string): ${RESOURCE_CHECK}`, (r: ResourceCheck, value: string) =>
      r.with({ [field]: value }),
    );
  }
  env.registerFunction(`${PATH_CHECK}.check(string): ${DECISION}`, (p: PathCheck, verb: string) =>
    ask(p.authorizer, {
      resourceRequest: false,
      verb,
      path: p.path,
      group: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
      fieldSelector: '',
      labelSelector: '',
    }),
  );
  env.registerFunction(`${RESOURCE_CHECK}.check(string): ${DECISION}`, (r: ResourceCheck, verb: string) =>
    ask(r.authorizer, {
      resourceRequest: true,
      verb,
      path: '',
      group: r.group,
      resource: r.resource,
      subresource: r.subresource,
      namespace: r.namespace,
      name: r.name,
      fieldSelector: r.fieldSelector,
      labelSelector: r.labelSelector,
    }),
  );
  env.registerFunction(`${DECISION}.allowed(): bool`, (d: Decision) => d.answer.decision === 'Allow');
  env.registerFunction(`${DECISION}.reason(): string`, (d: Decision) => d.answer.reason);
  env.registerFunction(`${DECISION}.errored(): bool`, (d: Decision) => d.answer.error !== undefined);
  env.registerFunction(`${DECISION}.error(): string`, (d: Decision) => d.answer.error ?? '');
}
