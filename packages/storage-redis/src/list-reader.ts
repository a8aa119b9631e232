import type { KubeObject, ObjectList } from '@kapi/apimachinery';
import {
  continueAfter,
  type ListPlan,
  MESSAGES,
  predicateMatches,
  resolveReadRevision,
  type SelectionPredicate,
  storageErrors,
} from '@kapi/storage';
import { GET, LIST } from './lua-scripts.ts';
import { decodeObject } from './object-codec.ts';
import type { ScriptRunner } from './script-runner.ts';

/**
 * Executes a list plan (from planList) in batches of at most `maxBatch` objects. The first batch reads at the plan's
 * revision (the latest when it has none) and every later batch at the revision the first one reported, so the result
 * is one snapshot. Selectors are applied here: with a limit the page is filled from further batches (growing like the
 * etcd3 store's), and `continue` is set while objects remain in the range.
 */
export async function readList(
  runner: ScriptRunner,
  plan: ListPlan,
  pred: SelectionPredicate | undefined,
  maxBatch: number,
): Promise<ObjectList> {
  if (!plan.recursive) return readOne(runner, plan, pred);
  const filtered = !plan.unfiltered;
  const limit = plan.limit;
  const items: KubeObject[] = [];
  let at = plan.readAt ?? 0;
  let minRev = plan.minRevision;
  let start = plan.startKey;
  let readRev = 0;
  let lastKey = '';
  let more = false;
  let remaining = -1;
  let batch = limit > 0 ? Math.min(limit, maxBatch) : maxBatch;
  for (;;) {
    // Without a selector a page is exactly `limit` objects: one batch, which also counts what is left.
    const count = limit > 0 && !filtered ? limit : batch;
    const r = await runner.run(LIST, [start, plan.prefix, at, minRev, count, limit > 0 && !filtered ? 1 : 0], plan.key);
    if (r[0] === -1) outOfBounds(plan, at, Number(r[1]), Number(r[2]));
    readRev = Number(r[1]);
    runner.observe(readRev);
    const batchMore = r[2] === 1;
    remaining = Number(r[3]);
    let full = false;
    for (let i = 4; i + 2 < r.length; i += 3) {
      if (limit > 0 && items.length >= limit) {
        full = true;
        break;
      }
      const key = r[i] as string;
      const obj = decodeObject(key, r[i + 2] as string, r[i + 1] as number);
      lastKey = key;
      if (!filtered || predicateMatches(pred, obj)) items.push(obj);
    }
    if (full) {
      more = true;
      break;
    }
    // (a batch that claims more but brought nothing would loop forever: the indexes disagree, stop here)
    if (!batchMore || r.length <= 4) break;
    if (limit > 0 && items.length >= limit) {
      more = true;
      break;
    }
    at = readRev;
    minRev = 0;
    start = `${lastKey}\u0000`;
    batch = Math.min(batch * 2, maxBatch);
  }
  const metadata: ObjectList['metadata'] = { resourceVersion: String(readRev) };
  if (more) {
    metadata.continue = continueAfter(plan, lastKey, readRev);
    if (plan.unfiltered && remaining >= 0) metadata.remainingItemCount = remaining;
  }
  return { metadata, items };
}

/** A non-recursive list: the object at the plan's key, or nothing. */
async function readOne(runner: ScriptRunner, plan: ListPlan, pred: SelectionPredicate | undefined): Promise<ObjectList> {
  const at = plan.readAt ?? 0;
  const r = await runner.run(GET, [plan.key, at, plan.minRevision], plan.key);
  if (r[0] === -1) outOfBounds(plan, at, Number(r[1]), Number(r[2]));
  const readRev = Number(r[1]);
  runner.observe(readRev);
  const items: KubeObject[] = [];
  if (r.length >= 4) {
    const obj = decodeObject(plan.key, r[3] as string, r[2] as number);
    if (predicateMatches(pred, obj)) items.push(obj);
  }
  return { metadata: { resourceVersion: String(readRev) }, items };
}

/** The error for a read the store refused as out of bounds (too new, or compacted — also between two batches). */
function outOfBounds(plan: ListPlan, at: number, current: number, compacted: number): never {
  resolveReadRevision(at > 0 ? { ...plan, readAt: at } : plan, current, compacted);
  throw storageErrors.expired(MESSAGES.listExpired);
}
