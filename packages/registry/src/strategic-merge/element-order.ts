import { errNoMergeKey, errNotAMap } from './errors.ts';
import { getOwn, hasOwn, isObject, jsonEqual } from './json.ts';

/**
 * The order of a merged list, as kube settles it: items the patch (or its $setElementOrder list) names take
 * the patch's order; the others keep the original's; the two runs are then interleaved, an original-only item
 * going first only where the original had it before the patch item. So new items without a $setElementOrder
 * land before the original-only ones, as in kube.
 */

/** How an item is identified: its merge key's value (objects), or itself (primitives). */
function identity(item: unknown, mergeKey: string | undefined): unknown {
  return mergeKey !== undefined && isObject(item) ? getOwn(item, mergeKey) : item;
}

function sameIdentity(a: unknown, b: unknown): boolean {
  return typeof a === 'object' && a !== null ? jsonEqual(a, b) : a === b;
}

/** Index of `item` in `list` by identity, -1 when absent. */
export function indexByIdentity(list: readonly unknown[], item: unknown, mergeKey: string | undefined): number {
  const id = identity(item, mergeKey);
  return list.findIndex((x) => sameIdentity(identity(x, mergeKey), id));
}

/** Every item is an object carrying the merge key (kube checks this before ordering). */
export function requireMergeKeys(list: readonly unknown[], mergeKey: string): void {
  list.forEach((item, i) => {
    if (!isObject(item)) throw errNotAMap(i);
    if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
  });
}

/** Splits `items` into those `by` names and the rest, keeping their order. */
export function partitionByPresence(
  items: readonly unknown[],
  by: readonly unknown[],
  mergeKey: string | undefined,
): { named: unknown[]; rest: unknown[] } {
  const named: unknown[] = [];
  const rest: unknown[] = [];
  for (const item of items) (indexByIdentity(by, item, mergeKey) >= 0 ? named : rest).push(item);
  return { named, rest };
}

/** Stable sort of `items` by their position in `order`; items `order` lacks keep their place after the others. */
function sortByOrder(items: readonly unknown[], order: readonly unknown[], mergeKey: string | undefined): unknown[] {
  const rank = (x: unknown): number => {
    const i = indexByIdentity(order, x, mergeKey);
    return i < 0 ? Number.POSITIVE_INFINITY : i;
  };
  return items
    .map((item, i) => ({ item, i, r: rank(item) }))
    .sort((a, b) => (a.r === b.r ? a.i - b.i : a.r < b.r ? -1 : 1))
    .map((e) => e.item);
}

/**
 * The final order: `patchItems` sorted by `patchOrder`, `serverOnly` by `serverOrder`, then merged — a server-only
 * item goes first only when both it and the next patch item are in `serverOrder` and it came first there.
 */
export function normalizeElementOrder(
  patchItems: readonly unknown[],
  serverOnly: readonly unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string | undefined,
): unknown[] {
  if (mergeKey !== undefined) for (const l of [patchItems, serverOnly, patchOrder, serverOrder]) requireMergeKeys(l, mergeKey);
  const right = sortByOrder(patchItems, patchOrder, mergeKey);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) out.push(left[i++]);
    else if (i >= left.length) out.push(right[j++]);
    else {
      const li = indexByIdentity(serverOrder, left[i], mergeKey);
      const ri = indexByIdentity(serverOrder, right[j], mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}
