import type { Quantity } from '@kapi/cel';
import type { AdmissionAttributes } from '../../attributes.ts';
import { admissionForbidden } from '../../forbidden.ts';
import { canonicalQuantity, countQuantity, parseQuantity } from './quantity.ts';
import { objectCountNames } from './quota-names.ts';
import type { ResourceList, ResourceQuota } from './resource-quota.ts';

/** A quota with scopes or a scope selector: object counts match no scope (kube's generic evaluator, MatchesNoScopeFunc). */
export function hasScopes(rq: ResourceQuota): boolean {
  return (rq.spec?.scopes?.length ?? 0) > 0 || (rq.spec?.scopeSelector?.matchExpressions?.length ?? 0) > 0;
}

/** The names of `list` a quota counts objects of `attrs.resource` by (kube's evaluator.MatchingResources). */
function matchingNames(attrs: AdmissionAttributes, list: ResourceList | undefined): string[] {
  const own = objectCountNames(attrs.resource);
  return Object.keys(list ?? {}).filter((k) => own.includes(k));
}

/** quota's prettyPrint: `name=quantity` sorted by name, joined by commas. */
function prettyPrint(list: ReadonlyMap<string, Quantity>): string {
  return [...list.keys()]
    .sort()
    .map((k) => `${k}=${canonicalQuantity(list.get(k) as Quantity)}`)
    .join(',');
}

const sortedNames = (names: readonly string[]) => [...names].sort().join(',');

/**
 * A resource whose consumption needs a covering quota (kube's ResourceQuotaConfiguration limitedResources): a create
 * of it is refused unless a quota of the namespace limits each of its usage names containing one of `matchContains`.
 */
export interface LimitedResource {
  /** "" for the core group. */
  readonly apiGroup?: string;
  readonly resource: string;
  readonly matchContains?: readonly string[];
}

/** limitedByDefault: the request's usage names (count/x, its legacy name) that a limitedResources entry names. */
function limitedByDefault(attrs: AdmissionAttributes, limited: readonly LimitedResource[]): string[] {
  const out: string[] = [];
  const entries = limited.filter((l) => (l.apiGroup ?? '') === attrs.resource.group && l.resource === attrs.resource.resource);
  for (const l of entries)
    for (const k of objectCountNames(attrs.resource)) if ((l.matchContains ?? []).some((m) => k.includes(m))) out.push(k);
  return out;
}

/**
 * kube's CheckRequest for an object-count evaluator on CREATE: every quota of the namespace whose status.hard counts the
 * resource must know its usage and have room for one more. Returns the quotas with status.used charged (copies; the
 * input is untouched) and the indexes of those it changed; throws kube's Forbidden otherwise.
 */
export function checkRequest(
  quotas: readonly ResourceQuota[],
  attrs: AdmissionAttributes,
  limited: readonly LimitedResource[] = [],
): { quotas: ResourceQuota[]; changed: number[] } {
  const interesting: number[] = [];
  // Every name some matching quota limits (to tell whether a limited resource is covered).
  const covered = new Set<string>();
  for (const [i, rq] of quotas.entries()) {
    const restricted = matchingNames(attrs, rq.status?.hard);
    // Matches: the quota counts at least one of the names, and every scope matches (none does for object counts).
    if (restricted.length === 0 || hasScopes(rq)) continue;
    const used = rq.status?.used ?? {};
    if (!restricted.every((k) => Object.hasOwn(used, k)))
      throw admissionForbidden(attrs, `status unknown for quota: ${rq.metadata.name}, resources: ${sortedNames(restricted)}`);
    interesting.push(i);
    for (const k of restricted) covered.add(k);
  }
  const uncovered = limitedByDefault(attrs, limited).filter((k) => !covered.has(k));
  if (uncovered.length) throw admissionForbidden(attrs, `insufficient quota to consume: ${sortedNames([...new Set(uncovered)])}`);
  if (interesting.length === 0) return { quotas: [...quotas], changed: [] };

  // The object's usage: one of each name it is counted by.
  const one = countQuantity(1);
  const out = quotas.map((q) => structuredClone(q));
  for (const i of interesting) {
    const rq = out[i] as ResourceQuota;
    const hard = rq.status?.hard ?? {};
    const used = rq.status?.used ?? {};
    const requested = new Map<string, Quantity>(matchingNames(attrs, hard).map((k) => [k, one]));
    const exceeded: string[] = [];
    const next: ResourceList = { ...used };
    for (const [k, q] of requested) {
      const total = parseQuantity(used[k] ?? 0).add(q);
      next[k] = canonicalQuantity(total);
      if (total.cmp(parseQuantity(hard[k] ?? 0)) > 0) exceeded.push(k);
    }
    if (exceeded.length) {
      const pick = (list: ResourceList) =>
        new Map(exceeded.filter((k) => list[k] !== undefined).map((k) => [k, parseQuantity(list[k] ?? 0)]));
      const failedRequested = new Map(exceeded.map((k) => [k, requested.get(k) as Quantity]));
      throw admissionForbidden(
        attrs,
        `exceeded quota: ${rq.metadata.name}, requested: ${prettyPrint(failedRequested)}, used: ${prettyPrint(pick(used))}, limited: ${prettyPrint(pick(hard))}`,
      );
    }
    rq.status = { ...rq.status, used: next };
  }
  return { quotas: out, changed: interesting };
}
