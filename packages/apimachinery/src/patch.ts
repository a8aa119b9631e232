import { copyJson, isJsonObject as isObject, type JsonObject, jsonEqual, setOwn } from './json-data.ts';
import { newBadRequest, newRequestEntityTooLarge, StatusError } from './status-error.ts';

/**
 * Patches on plain JSON values: RFC 6902 JSON Patch (application/json-patch+json) and RFC 7386 JSON
 * merge patch (application/merge-patch+json). Errors are the ones kube-apiserver's patch handler
 * (k8s.io/apiserver/pkg/endpoints/handlers/patch.go) gives: an undecodable patch is 400 BadRequest, too
 * many operations is 413, and a JSON patch that does not apply is 422 Invalid.
 */

/** One RFC 6902 operation. */
export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'move'; from: string; path: string }
  | { op: 'copy'; from: string; path: string }
  | { op: 'test'; path: string; value: unknown };

type OpName = JsonPatchOperation['op'];

/** kube-apiserver refuses JSON patches with more operations than this (413). */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

const OP_NAMES: readonly OpName[] = ['add', 'remove', 'replace', 'move', 'copy', 'test'];
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * kube-apiserver answers a patch that fails to apply with NewGenericServerResponse(422, …): reason Invalid
 * and a fixed text that drops the cause. We keep the code and reason and say what went wrong instead.
 */
function notApplicable(message: string): StatusError {
  return new StatusError({ code: 422, reason: 'Invalid', message });
}

// Copies are explicit-stack walks (json-data.ts): a value may nest as deep as the decoder allows.
const clone = copyJson;

// ---------------------------------------------------------------------------------------------------
// RFC 6902

interface CheckedOp {
  index: number;
  op: OpName;
  path: string;
  tokens: string[];
  from?: string;
  fromTokens?: string[];
  value?: unknown;
}

/** Splits an RFC 6901 pointer into unescaped reference tokens; null when the pointer is malformed. */
function parsePointer(pointer: string): string[] | null {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return null;
  const tokens: string[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    if (/~(?![01])/.test(raw)) return null;
    tokens.push(raw.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return tokens;
}

function checkOp(raw: JsonObject, index: number): CheckedOp {
  const ctx = `json patch operation ${index}`;
  const op = raw.op;
  if (typeof op !== 'string' || !(OP_NAMES as readonly string[]).includes(op)) {
    const got = op === undefined ? 'no "op"' : `op ${JSON.stringify(op)}`;
    throw notApplicable(`${ctx}: has ${got}, expected one of ${OP_NAMES.map((n) => `"${n}"`).join(', ')}`);
  }
  const name = op as OpName;
  const pointer = (field: 'path' | 'from'): { text: string; tokens: string[] } => {
    const text = raw[field];
    if (typeof text !== 'string') throw notApplicable(`${ctx} (${name}): "${field}" must be a string, got ${jsonType(text)}`);
    const tokens = parsePointer(text);
    if (!tokens) throw notApplicable(`${ctx} (${name}): "${field}" is not a valid JSON pointer: ${JSON.stringify(text)}`);
    return { text, tokens };
  };
  const path = pointer('path');
  const checked: CheckedOp = { index, op: name, path: path.text, tokens: path.tokens };
  if (name === 'move' || name === 'copy') {
    const from = pointer('from');
    checked.from = from.text;
    checked.fromTokens = from.tokens;
  }
  if (name === 'add' || name === 'replace' || name === 'test') {
    if (raw.value === undefined) throw notApplicable(`${ctx} (${name}): missing "value"`);
    if (!isJsonValue(raw.value)) throw notApplicable(`${ctx} (${name}): "value" is not a JSON value`);
    checked.value = raw.value;
  }
  return checked;
}

type Lookup = { ok: true; value: unknown } | { ok: false; detail: string };

/** Resolves a pointer through own properties and in-range indexes only (never inherited members). */
function lookup(doc: unknown, tokens: readonly string[], pointer: string): Lookup {
  let cur = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      if (!ARRAY_INDEX.test(t)) return { ok: false, detail: `invalid array index ${JSON.stringify(t)} in path ${JSON.stringify(pointer)}` };
      const i = Number(t);
      if (i >= cur.length) return { ok: false, detail: `array index ${i} is out of bounds in path ${JSON.stringify(pointer)}` };
      cur = cur[i];
    } else if (isObject(cur) && Object.hasOwn(cur, t)) {
      cur = cur[t];
    } else {
      return { ok: false, detail: `doc is missing path ${JSON.stringify(pointer)}` };
    }
  }
  return { ok: true, value: cur };
}

/** Checks that `add` may write at `tokens`: the parent exists and, for arrays, the index is 0..length or "-". */
function checkAddTarget(doc: unknown, tokens: readonly string[], pointer: string): string | undefined {
  if (tokens.length === 0) return undefined;
  const parent = lookup(doc, tokens.slice(0, -1), pointer);
  if (!parent.ok) return parent.detail;
  const last = tokens[tokens.length - 1] as string;
  if (Array.isArray(parent.value)) {
    if (last === '-') return undefined;
    if (!ARRAY_INDEX.test(last)) return `invalid array index ${JSON.stringify(last)} in path ${JSON.stringify(pointer)}`;
    if (Number(last) > parent.value.length) return `array index ${last} is out of bounds in path ${JSON.stringify(pointer)}`;
    return undefined;
  }
  if (isObject(parent.value)) return undefined;
  return `doc is missing path ${JSON.stringify(pointer)}: its parent is not an object or array`;
}

const isProperPrefix = (prefix: readonly string[], of: readonly string[]): boolean =>
  prefix.length < of.length && prefix.every((t, i) => t === of[i]);

/**
 * Writes one checked operation into `doc` (ours to mutate) and returns the document. Every path was checked first
 * (lookup, checkAddTarget), so this only writes: own properties through setOwn, array members by index.
 */
function write(doc: unknown, op: 'add' | 'remove' | 'replace', tokens: readonly string[], value?: unknown): unknown {
  if (tokens.length === 0) return value;
  const found = lookup(doc, tokens.slice(0, -1), '');
  const parent = found.ok ? found.value : undefined;
  const last = tokens[tokens.length - 1] as string;
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (op === 'add') parent.splice(i, 0, value);
    else if (op === 'remove') parent.splice(i, 1);
    else parent[i] = value;
  } else if (isObject(parent)) {
    if (op === 'remove') delete parent[last];
    else setOwn(parent, last, value);
  }
  return doc;
}

function applyOne(doc: unknown, c: CheckedOp): unknown {
  const ctx = `json patch operation ${c.index} (${c.op})`;
  function fail(detail: string): never {
    throw notApplicable(`${ctx}: ${detail}`);
  }
  switch (c.op) {
    case 'add': {
      const bad = checkAddTarget(doc, c.tokens, c.path);
      if (bad) fail(bad);
      return write(doc, 'add', c.tokens, clone(c.value));
    }
    case 'remove': {
      if (c.tokens.length === 0) fail('cannot remove the whole document');
      const found = lookup(doc, c.tokens, c.path);
      if (!found.ok) fail(found.detail);
      return write(doc, 'remove', c.tokens);
    }
    case 'replace': {
      const found = lookup(doc, c.tokens, c.path);
      if (!found.ok) fail(found.detail);
      return write(doc, 'replace', c.tokens, clone(c.value));
    }
    case 'test': {
      const found = lookup(doc, c.tokens, c.path);
      if (!found.ok) fail(found.detail);
      if (!jsonEqual(found.value, c.value)) fail(`test failed: the value at ${JSON.stringify(c.path)} is not the expected value`);
      return doc;
    }
    case 'copy': {
      const src = lookup(doc, c.fromTokens ?? [], c.from ?? '');
      if (!src.ok) fail(`"from" ${src.detail}`);
      const bad = checkAddTarget(doc, c.tokens, c.path);
      if (bad) fail(bad);
      return write(doc, 'add', c.tokens, clone(src.value));
    }
    case 'move': {
      const fromTokens = c.fromTokens ?? [];
      const from = c.from ?? '';
      const src = lookup(doc, fromTokens, from);
      if (!src.ok) fail(`"from" ${src.detail}`);
      if (isProperPrefix(fromTokens, c.tokens)) fail(`cannot move ${JSON.stringify(from)} into its own child ${JSON.stringify(c.path)}`);
      if (from === c.path) return doc;
      // RFC 6902 defines move as remove then add; the target is checked against the document after the
      // remove, so indexes that shift are judged as they will be.
      const removed = write(doc, 'remove', fromTokens);
      const bad = checkAddTarget(removed, c.tokens, c.path);
      if (bad) fail(bad);
      return write(removed, 'add', c.tokens, src.value);
    }
  }
}

/**
 * Applies an RFC 6902 JSON patch. `doc` is never mutated and the result shares nothing with `doc` or
 * `patch`. Throws 400 when `patch` is not an array of objects, 413 beyond 10000 operations, and 422 Invalid
 * when an operation is malformed or does not apply (missing path, failed test, bad index, …). Paths through
 * `__proto__` or `constructor` are keys like any other: only own properties are ever followed or written.
 */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) {
    throw newBadRequest(`error decoding patch: a JSON patch must be an array of operations, got ${jsonType(patch)}`);
  }
  patch.forEach((op, i) => {
    if (!isObject(op)) throw newBadRequest(`error decoding patch: operation ${i} must be an object, got ${jsonType(op)}`);
  });
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw newRequestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
  }
  let out = clone(doc);
  (patch as JsonObject[]).forEach((raw, i) => {
    out = applyOne(out, checkOp(raw, i));
  });
  return out;
}

// ---------------------------------------------------------------------------------------------------
// RFC 7386

// The walks below keep explicit stacks: a patch and a document may each nest as deep as the decoder allows.

/** Whether `v` is a JSON value (undefined members of objects count as absent, as in JSON.stringify). */
function isJsonValue(v: unknown): boolean {
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    switch (typeof x) {
      case 'string':
      case 'boolean':
        continue;
      case 'number':
        if (!Number.isFinite(x)) return false;
        continue;
      case 'object':
        if (x === null) continue;
        if (Array.isArray(x)) {
          for (const e of x) {
            if (e === undefined) return false;
            stack.push(e);
          }
        } else for (const e of Object.values(x)) if (e !== undefined) stack.push(e);
        continue;
      default:
        return false;
    }
  }
  return true;
}

function mergeInto(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const root: JsonObject = {};
  // (the object merged into, the patch for it, the output to fill)
  const work: [JsonObject, JsonObject, JsonObject][] = [[isObject(target) ? target : {}, patch, root]];
  // A patch object becomes an output object filled later; anything else is copied.
  const child = (base: unknown, p: unknown): unknown => {
    if (!isObject(p)) return clone(p);
    const out: JsonObject = {};
    work.push([isObject(base) ? base : {}, p, out]);
    return out;
  };
  for (let item = work.pop(); item; item = work.pop()) {
    const [base, p, out] = item;
    for (const key of Object.keys(base)) {
      if (!Object.hasOwn(p, key) || p[key] === undefined) setOwn(out, key, clone(base[key]));
      else if (p[key] !== null) setOwn(out, key, child(base[key], p[key]));
    }
    for (const key of Object.keys(p)) {
      const value = p[key];
      if (Object.hasOwn(base, key) || value === undefined || value === null) continue;
      setOwn(out, key, child(undefined, value));
    }
  }
  return root;
}

/**
 * Applies an RFC 7386 merge patch: objects merge key by key, `null` deletes a key, arrays and scalars
 * replace, and an array patch replaces the whole document. `doc` is never mutated; the result shares nothing
 * with either input. A top-level `null` or scalar patch, or one that is not a JSON value, is 400
 * "Invalid JSON Patch": RFC 7386 would replace the document with it, kube-apiserver refuses it.
 */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (!isJsonValue(patch) || patch === null || typeof patch !== 'object') throw newBadRequest('Invalid JSON Patch');
  return mergeInto(doc, patch);
}

function diffObjects(original: JsonObject, modified: JsonObject): JsonObject {
  const root: JsonObject = {};
  // Every nested patch in the order made (a parent before its children), to drop the empty ones afterwards.
  const made: { patch: JsonObject; parent?: JsonObject; key?: string }[] = [];
  const work: [JsonObject, JsonObject, JsonObject][] = [[original, modified, root]];
  for (let item = work.pop(); item; item = work.pop()) {
    const [from, to, patch] = item;
    for (const key of Object.keys(from)) {
      if (from[key] !== undefined && (!Object.hasOwn(to, key) || to[key] === undefined)) setOwn(patch, key, null);
    }
    for (const key of Object.keys(to)) {
      const b = to[key];
      if (b === undefined) continue;
      const had = Object.hasOwn(from, key) && from[key] !== undefined;
      const a = had ? from[key] : undefined;
      if (had && isObject(a) && isObject(b)) {
        const sub: JsonObject = {};
        setOwn(patch, key, sub);
        made.push({ patch: sub, parent: patch, key });
        work.push([a, b, sub]);
      } else if (!had || !jsonEqual(a, b)) {
        setOwn(patch, key, clone(b));
      }
    }
  }
  for (let i = made.length - 1; i >= 0; i--) {
    const m = made[i] as (typeof made)[number];
    if (Object.keys(m.patch).length === 0 && m.parent && m.key !== undefined) delete m.parent[m.key];
  }
  return root;
}

/**
 * The merge patch that turns `original` into `modified`: changed and new keys with their new values,
 * removed keys as `null`, nested objects as nested patches, arrays whole. When either side is not an
 * object the patch is `modified` itself. RFC 7386 cannot set a key to `null`; such a key in `modified`
 * comes out as a deletion.
 */
export function createMergePatch(original: unknown, modified: unknown): unknown {
  if (isObject(original) && isObject(modified)) return diffObjects(original, modified);
  return clone(modified);
}
