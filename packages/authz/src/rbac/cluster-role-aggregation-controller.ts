import {
  type Clock,
  isConflict,
  isNotFound,
  jsonEqual,
  type LabelSelector,
  labelSelectorFromMetav1,
  type MetaV1LabelSelector,
} from '@kapi/apimachinery';
import {
  ControllerLoop,
  listAndWatch,
  type RequestContext,
  type StoreList,
  type StoreListOptions,
  type StoreWatchOptions,
} from '@kapi/registry';
import type { Watch } from '@kapi/storage';
import type { ClusterRole, PolicyRule } from './types.ts';

/** What the controller needs of the clusterroles: a registry Store of ClusterRoles is one. */
export interface ClusterRoleClient {
  list(ctx: RequestContext, opts?: StoreListOptions): Promise<StoreList<ClusterRole>>;
  watch(ctx: RequestContext, opts?: StoreWatchOptions): Watch;
  update(ctx: RequestContext, name: string, obj: ClusterRole): Promise<unknown>;
}

export interface ClusterRoleAggregationControllerOptions {
  clusterRoles: ClusterRoleClient;
  /** Timers of retries (default: the real clock). */
  clock?: Clock;
  /** How long before a role whose sync failed, or a watch that failed, is tried again. Default 1000. */
  retryAfterMs?: number;
  /** Told of every failed sync or list; the work is retried. */
  onError?: (err: unknown, name?: string) => void;
}

const RULE_FIELDS = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;

/** equality.Semantic.DeepEqual of two rules: a list left out equals an empty one. */
function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  return RULE_FIELDS.every((f) => jsonEqual(a[f] ?? [], b[f] ?? []));
}

function sameRules(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return a.length === b.length && a.every((r, i) => sameRule(r, b[i] as PolicyRule));
}

/** Go's string order (bytes), which kube's byName sort uses. */
const byName = (a: ClusterRole, b: ClusterRole): number => {
  const x = a.metadata.name ?? '';
  const y = b.metadata.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * kube-controller-manager's clusterrole-aggregation controller (pkg/controller/clusterroleaggregation), in process:
 * a ClusterRole with an aggregationRule gets as its rules those of every other ClusterRole that one of its
 * clusterRoleSelectors matches — selector by selector, roles by name, a rule already taken not taken again — written
 * whenever they differ from its own. Rules written by hand into such a role are therefore replaced, as in kube. Any
 * change to any ClusterRole looks at every aggregated one again (kube's controller does, not knowing which depend on
 * which). Reads come from the controller's own copy of the roles, kept from a list and watch.
 */
export class ClusterRoleAggregationController {
  readonly #client: ClusterRoleClient;
  readonly #loop: ControllerLoop;
  /** The informer's cache: every ClusterRole by name, as last seen. */
  #roles = new Map<string, ClusterRole>();
  /** Roles whose sync waited for a role they aggregate since a sync last ran (each waits once: cycles end). */
  readonly #waited = new Set<string>();

  constructor(options: ClusterRoleAggregationControllerOptions) {
    this.#client = options.clusterRoles;
    this.#loop = new ControllerLoop(options, (name) => this.#sync(name));
  }

  get running(): boolean {
    return this.#loop.running;
  }

  start(): void {
    this.#loop.start((loop) => {
      void listAndWatch(this.#client, {
        ...loop,
        onEvent: (type, obj) => {
          const name = obj.metadata.name ?? '';
          if (type === 'DELETED') this.#roles.delete(name);
          else this.#roles.set(name, obj as ClusterRole);
          this.#enqueueAggregated();
        },
        // A relist is all there is: roles deleted while the watch was down are gone.
        onList: (items) => {
          this.#roles = new Map(items.map((o) => [o.metadata.name ?? '', o as ClusterRole]));
          this.#enqueueAggregated();
        },
      });
    });
  }

  /** Stops watching and drops pending work; a sync under way finishes. */
  stop(): void {
    this.#loop.stop();
    this.#roles = new Map();
  }

  /** Every role that aggregates: which of them a change touches is not known, so all are looked at. */
  #enqueueAggregated(): void {
    for (const [name, role] of this.#roles) if (role.aggregationRule) this.#loop.queue.add(name);
  }

  /** Whether `role`, aggregating with `selectors`, takes rules from a role that is itself aggregated and waits in the queue. */
  #aggregatesQueued(role: ClusterRole, selectors: readonly LabelSelector[]): boolean {
    for (const [other, candidate] of this.#roles) {
      if (candidate === role || !candidate.aggregationRule || !this.#loop.queue.has(other)) continue;
      if (selectors.some((s) => s.matches(candidate.metadata.labels))) return true;
    }
    return false;
  }

  /** syncClusterRole; true asks for another look later (the write met a newer version of the role). */
  async #sync(name: string): Promise<boolean> {
    const role = this.#roles.get(name);
    if (!role?.aggregationRule) return false;
    // An invalid selector (one stored before validation refused it) fails the sync, which is retried, as kube's.
    const selectors = (role.aggregationRule.clusterRoleSelectors ?? []).map((s) => labelSelectorFromMetav1(s as MetaV1LabelSelector));
    // An aggregated role it takes rules from is queued: that one first (kube's queue has no order), so that admin,
    // which takes edit's rules, which takes view's, is written once rather than once per role it depends on.
    if (!this.#waited.has(name) && this.#aggregatesQueued(role, selectors)) {
      this.#waited.add(name);
      this.#loop.queue.add(name);
      return false;
    }
    this.#waited.clear();
    const rules: PolicyRule[] = [];
    for (const compiled of selectors) {
      const matching = [...this.#roles.values()].filter((r) => compiled.matches(r.metadata.labels)).sort(byName);
      for (const other of matching) {
        if (other.metadata.name === name) continue;
        for (const rule of other.rules ?? []) if (!rules.some((r) => sameRule(r, rule))) rules.push(rule);
      }
    }
    if (sameRules(rules, role.rules ?? [])) return false;
    // kube applies the rules (server-side apply, forced); without it, an update of the version last seen.
    const updated: ClusterRole = { ...structuredClone(role), rules: structuredClone(rules) };
    try {
      const written = await this.#client.update({}, name, updated);
      // Read your writes: the role synced next that aggregates this one sees its new rules before the watch brings
      // them (unless the watch brought a newer version meanwhile).
      const object = (written as { object?: ClusterRole } | undefined)?.object;
      if (object && this.#roles.get(name) === role) this.#roles.set(name, object);
    } catch (err) {
      // Deleted meanwhile: nothing to do. Changed meanwhile: the watch brings the new version; look again then.
      if (isNotFound(err)) return false;
      if (isConflict(err)) return true;
      throw err;
    }
    return false;
  }
}
