import {
  DELETE,
  DELETE_FROM_PRIMITIVE_LIST_PREFIX,
  MERGE,
  PATCH_DIRECTIVE,
  REPLACE,
  RETAIN_KEYS,
  SET_ELEMENT_ORDER_PREFIX,
} from './directives.ts';
import { indexByIdentity, normalizeElementOrder, partitionByPresence } from './element-order.ts';
import {
  errBadPatchType,
  errListOfLists,
  errMergeListDirective,
  errMixedList,
  errNoMergeKey,
  errNoMergeKeyDeclared,
  errNotAList,
  errPrimitiveListFormat,
  errRetainKeysFormat,
  errSetElementOrderFormat,
  errSetElementOrderMismatch,
} from './errors.ts';
import { getOwn, hasOwn, isObject, type JsonObject, kindOf, ownKeys, setOwn } from './json.ts';
import { mergesList, type PatchMeta, replacesMap } from './patch-meta.ts';

/**
 * The strategic merge itself, after kube's mergeMap / mergeSlice. Both arguments are private copies the caller
 * gave up, so the functions work in place and return the result. One deliberate difference: where kube stores a
 * patch value as it came (a field the original lacks, a replaced map), kapi merges it into an empty value, so
 * directives and nulls inside it are applied rather than stored.
 */

/** A patch value merged into nothing: nulls dropped, directives applied. */
function fresh(value: unknown, meta: PatchMeta): unknown {
  if (isObject(value)) return mergeMap({}, value, meta);
  if (Array.isArray(value)) return mergesList(meta) ? mergeList([], value, meta) : value;
  return value;
}

/** Clears the original's keys a `$retainKeys` list leaves out, after checking the patch sets only listed keys. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const keep = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(keep)) throw errRetainKeysFormat();
  for (const k of ownKeys(patch)) {
    if (patch[k] === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || k.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!keep.includes(k)) throw errRetainKeysFormat();
  }
  for (const k of Object.keys(original)) if (!keep.includes(k)) delete original[k];
}

/** The list at `key` of a map, or undefined; anything else there is an error. */
function listAt(obj: JsonObject, key: string): unknown[] | undefined {
  if (!hasOwn(obj, key)) return undefined;
  const v = obj[key];
  if (!Array.isArray(v)) throw errNotAList(key, v);
  return v;
}

/** Patch items other than `$patch: delete` ones must appear in the `$setElementOrder` list, in the same order. */
function checkAgainstOrder(patchList: readonly unknown[], order: readonly unknown[], mergeKey: string | undefined): void {
  if (order.length === 0 || patchList.length === 0) return;
  const isDirective = (x: unknown): boolean => isObject(x) && Object.hasOwn(x, PATCH_DIRECTIVE);
  const items = patchList.filter((x) => !(mergeKey !== undefined && isObject(x) && getOwn(x, PATCH_DIRECTIVE) === DELETE));
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p];
    if (isDirective(item)) {
      p++;
      continue;
    }
    if (mergeKey !== undefined) {
      if (!isObject(item) || !hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      const ord = order[o];
      if (!isObject(ord) || !hasOwn(ord, mergeKey)) throw errNoMergeKey(ord, mergeKey);
    }
    if (indexByIdentity([order[o]], item, mergeKey) === 0) p++;
    o++;
  }
  if (items.slice(p).some((x) => !isDirective(x))) throw errSetElementOrderMismatch(patchList, order);
}

/** The merge key when the list holds objects, undefined for primitives. */
function mergeKeyFor(meta: PatchMeta, ...lists: readonly unknown[][]): string | undefined {
  return lists.some((l) => l.some(isObject)) ? meta.mergeKey : undefined;
}

/** Processes every `$setElementOrder/<field>`: merges that field's list now and puts it in the order given. */
function applySetElementOrder(original: JsonObject, patch: JsonObject, meta: PatchMeta): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw errSetElementOrderFormat();
    const field = key.slice(SET_ELEMENT_ORDER_PREFIX.length);
    const fieldMeta = meta.field(field);
    const originalList = listAt(original, field);
    const patchList = listAt(patch, field);
    const mergeKey = mergeKeyFor(fieldMeta, originalList ?? [], patchList ?? [], order);
    checkAgainstOrder(patchList ?? [], order, mergeKey);
    if (!originalList && !patchList) continue;
    delete patch[field];
    let merged: unknown[];
    if (originalList && patchList) merged = mergesList(fieldMeta) ? mergeList(originalList, patchList, fieldMeta) : patchList;
    else if (originalList) merged = originalList;
    else merged = fresh(patchList, fieldMeta) as unknown[];
    // Only merged lists have an order of the server's to reconcile; a replaced list is the patch's.
    if (mergesList(fieldMeta)) {
      const { named, rest } = partitionByPresence(merged, order, mergeKey);
      merged = normalizeElementOrder(named, rest, order, originalList ?? [], mergeKey);
    }
    setOwn(original, field, merged);
  }
}

/** Removes the values each `$deleteFromPrimitiveList/<field>` names from that list. */
function applyDeleteFromPrimitiveList(original: JsonObject, key: string, values: unknown): void {
  if (!Array.isArray(values)) throw errPrimitiveListFormat();
  const field = key.slice(DELETE_FROM_PRIMITIVE_LIST_PREFIX.length);
  const list = getOwn(original, field);
  if (!Array.isArray(list)) return;
  setOwn(
    original,
    field,
    list.filter((v) => !values.some((d) => d === v)),
  );
}

/** A map whose keys are still to merge: `patch`'s keys into `target`. */
interface MapTask {
  target: JsonObject;
  patch: JsonObject;
  meta: PatchMeta;
}

/**
 * Merges `patch` into `original` (both owned by the caller): the heart of a strategic merge patch. Nested maps are
 * merged from an explicit work list rather than by recursion, so a patch may nest as deep as the decoder allows: a
 * map's result container is known as soon as its `$patch` directive is read, so it is put in place at once and its
 * keys are merged later. (Lists still recurse into their items; they nest only as deep as a schema declares merge keys.)
 */
export function mergeMap(original: JsonObject, patch: JsonObject, meta: PatchMeta): JsonObject {
  const tasks: MapTask[] = [];
  const root = openMap(original, patch, meta, tasks);
  for (let task = tasks.pop(); task; task = tasks.pop()) mergeKeys(task, tasks);
  return root;
}

/** Applies a map's own directives and returns the container its result is; its keys are left as a task. */
function openMap(original: JsonObject, patch: JsonObject, meta: PatchMeta, tasks: MapTask[]): JsonObject {
  let target = original;
  if (Object.hasOwn(patch, PATCH_DIRECTIVE)) {
    const directive = patch[PATCH_DIRECTIVE];
    if (directive === DELETE) return {};
    // kube refuses "merge" on a map; it is the default, so kapi takes it as a no-op.
    if (directive !== REPLACE && directive !== MERGE) throw errBadPatchType(directive, patch);
    delete patch[PATCH_DIRECTIVE];
    if (directive === REPLACE) target = {};
  }
  applyRetainKeys(target, patch);
  applySetElementOrder(target, patch, meta);
  tasks.push({ target, patch, meta });
  return target;
}

/** A patch value merged into nothing, its maps left as tasks. */
function freshLater(value: unknown, meta: PatchMeta, tasks: MapTask[]): unknown {
  if (isObject(value)) return openMap({}, value, meta, tasks);
  if (Array.isArray(value)) return mergesList(meta) ? mergeList([], value, meta) : value;
  return value;
}

function mergeKeys({ target: original, patch, meta }: MapTask, tasks: MapTask[]): void {
  const deletions: string[] = [];
  for (const key of ownKeys(patch)) {
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      deletions.push(key);
      continue;
    }
    const value = patch[key];
    if (value === null) {
      delete original[key];
      continue;
    }
    const fieldMeta = meta.field(key);
    const current = getOwn(original, key);
    if (current === undefined || current === null || kindOf(current) !== kindOf(value)) {
      setOwn(original, key, freshLater(value, fieldMeta, tasks));
    } else if (isObject(current) && isObject(value)) {
      setOwn(original, key, replacesMap(fieldMeta) ? freshLater(value, fieldMeta, tasks) : openMap(current, value, fieldMeta, tasks));
    } else if (Array.isArray(current) && Array.isArray(value)) {
      setOwn(original, key, mergesList(fieldMeta) ? mergeList(current, value, fieldMeta) : value);
    } else {
      setOwn(original, key, value);
    }
  }
  for (const key of deletions) applyDeleteFromPrimitiveList(original, key, patch[key]);
}

/** All items share one JSON kind, and none is a list (kube's sliceElementType). */
function elementKind(original: unknown[], patch: unknown[]): string {
  let kind: string | undefined;
  for (const v of [...original, ...patch]) {
    const k = kindOf(v);
    if (k === 'array') throw errListOfLists();
    if (kind !== undefined && k !== kind) throw errMixedList([original, patch]);
    kind = k;
  }
  return kind ?? 'null';
}

/** Merges a list whose field says "merge": a set of primitives, or objects matched by merge key. */
export function mergeList(original: unknown[], patch: unknown[], meta: PatchMeta): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  if (elementKind(original, patch) !== 'object') {
    const merged: unknown[] = [];
    for (const v of [...original, ...patch]) if (!merged.includes(v)) merged.push(v);
    const { named, rest } = partitionByPresence(merged, patch, undefined);
    return normalizeElementOrder(named, rest, patch, original, undefined);
  }
  const mergeKey = meta.mergeKey;
  if (!mergeKey) throw errNoMergeKeyDeclared();
  const itemMeta = meta.items();

  // Directive items first: deletions by key, and `$patch: replace`, which drops the original list.
  let base = original;
  let items: JsonObject[] = [];
  let replace = false;
  for (const raw of patch as JsonObject[]) {
    if (!Object.hasOwn(raw, PATCH_DIRECTIVE)) {
      items.push(raw);
      continue;
    }
    const directive = raw[PATCH_DIRECTIVE];
    if (directive === DELETE) {
      if (!hasOwn(raw, mergeKey)) throw errNoMergeKey(raw, mergeKey);
      base = base.filter((o) => !(isObject(o) && indexByIdentity([o], raw, mergeKey) === 0));
    } else if (directive === REPLACE) {
      replace = true;
    } else if (directive === MERGE) {
      throw errMergeListDirective();
    } else {
      throw errBadPatchType(directive, raw);
    }
  }
  if (replace) {
    base = items.map((item) => mergeMap({}, item, itemMeta));
    items = [];
  }

  const merged = [...base];
  for (const item of items) {
    if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    const at = merged.findIndex((o) => isObject(o) && hasOwn(o, mergeKey) && indexByIdentity([o], item, mergeKey) === 0);
    if (at >= 0) merged[at] = mergeMap(merged[at] as JsonObject, item, itemMeta);
    else merged.push(mergeMap({}, item, itemMeta));
  }
  const { named, rest } = partitionByPresence(merged, items, mergeKey);
  return normalizeElementOrder(named, rest, items, base, mergeKey);
}
