import { goQuote } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RulesResult } from '../authorizer.ts';
import type { Graph, Vertex } from './graph.ts';

/** Who a user is in the graph: the subject's vertex kind and name ("" when the user is such a subject but unnamed). */
export interface GraphSubject {
  readonly kind: string;
  readonly name: string;
}

/** Which requests the graph decides: `verbs` on `resource` of `apiGroup`, whose objects are the graph's `kind` vertices. */
export interface GraphRule {
  readonly apiGroup: string;
  readonly resource: string;
  readonly kind: string;
  readonly verbs: readonly string[];
}

export interface GraphAuthorizerOptions {
  readonly graph: Graph;
  /** The user's subject, or null when the user is not one (then the authorizer has no opinion and says nothing). */
  readonly identify: (user: UserInfo) => GraphSubject | null;
  readonly rules: readonly GraphRule[];
  /** What the subject is called in reasons: "node" gives kube's "no relationship found between node 'x' and this object". */
  readonly subjectLabel?: string;
}

/** kube's NodeIdentifier: a user `system:node:<name>` in group `system:nodes` is the node `<name>` (kind Node). */
export function nodeIdentity(user: UserInfo): GraphSubject | null {
  if (!user.name.startsWith('system:node:') || !user.groups.includes('system:nodes')) return null;
  return { kind: 'Node', name: user.name.slice('system:node:'.length) };
}

const NO_OPINION = (reason: string): AuthorizationResult => ({ decision: 'NoOpinion', reason });

/**
 * The pattern of kube's Node authorizer (plugin/pkg/auth/authorizer/node) as a building block: a subject (e.g. a
 * node, identified from the user) may use the configured verbs on an object only when a path leads from that object to
 * the subject's vertex in a {@link Graph} kept from watches. Everything it does not allow is NoOpinion — with kube's
 * reasons — so a later authorizer (RBAC) can still decide; requests for other resources, and users who are not
 * subjects, pass on without a reason.
 *
 * @example
 * const nodes = new GraphAuthorizer({ graph, identify: nodeIdentity, subjectLabel: 'node',
 *   rules: [{ apiGroup: 'example.com', resource: 'gizmos', kind: 'Gizmo', verbs: ['get'] }] });
 */
export class GraphAuthorizer implements Authorizer {
  readonly #graph: Graph;
  readonly #identify: (user: UserInfo) => GraphSubject | null;
  readonly #rules: ReadonlyMap<string, GraphRule>;
  readonly #label: string;

  constructor(options: GraphAuthorizerOptions) {
    this.#graph = options.graph;
    this.#identify = options.identify;
    this.#rules = new Map(options.rules.map((r) => [`${r.apiGroup}/${r.resource}`, r]));
    this.#label = options.subjectLabel ?? 'subject';
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const subject = this.#identify(attrs.user);
    if (!subject) return NO_OPINION('');
    if (subject.name === '') return NO_OPINION(`unknown ${this.#label} for user ${goQuote(attrs.user.name)}`);
    const rule = attrs.resourceRequest ? this.#rules.get(`${attrs.apiGroup}/${attrs.resource}`) : undefined;
    if (!rule) return NO_OPINION('');
    if (!rule.verbs.includes(attrs.verb)) return NO_OPINION(`can only ${rule.verbs.join('/')} individual resources of this type`);
    if (attrs.subresource !== '') return NO_OPINION(`cannot ${attrs.verb} subresource`);
    if (attrs.name === '') return NO_OPINION('No Object name found');
    const object: Vertex = { kind: rule.kind, namespace: attrs.namespace, name: attrs.name };
    const target: Vertex = { kind: subject.kind, namespace: '', name: subject.name };
    if (!this.#graph.hasPath(object, target))
      return NO_OPINION(`no relationship found between ${this.#label} '${subject.name}' and this object`);
    return { decision: 'Allow', reason: '' };
  }

  /** As kube's node authorizer: a subject's permissions cannot be enumerated (incomplete); anyone else has none here. */
  async rulesFor(user: UserInfo, _namespace: string): Promise<RulesResult> {
    if (!this.#identify(user)) return { resourceRules: [], nonResourceRules: [], incomplete: false };
    return {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      error: new Error(`${this.#label} authorizer does not support user rule resolution`),
    };
  }
}
