import jsonpatch from 'fast-json-patch';
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

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

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

/** Sets an own property even for "__proto__", so a key from JSON stays data and never swaps a prototype. */
function setOwn(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

function clone<T>(v: T): T {
  return typeof v === 'object' && v !== null ? structuredClone(v) : v;
}

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

/** Keys that would reach a prototype rather than data: refused outright. */
function forbiddenToken(tokens: readonly string[]): string | undefined {
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i] === '__proto__') return '__proto__';
    if (tokens[i] === 'prototype' && tokens[i - 1] === 'constructor') return 'constructor/prototype';
  }
  return undefined;
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
    const bad = forbiddenToken(tokens);
    if (bad) throw notApplicable(`${ctx} (${name}): "${field}" ${JSON.stringify(text)} is not allowed: it reaches ${bad}`);
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

/** Runs one operation through fast-json-patch on `doc` (ours to mutate); returns the new document. */
function runLibrary(doc: unknown, operation: JsonPatchOperation, index: number): unknown {
  try {
    // validate, mutate our private copy, ban prototype keys.
    return jsonpatch.applyOperation(doc, operation, true, true, true, index).newDocument;
  } catch (e) {
    if (e instanceof jsonpatch.JsonPatchError || e instanceof TypeError) {
      // The library appends the operation and the whole tree on later lines; the first line says it.
      const first = (e.message.split('\n')[0] ?? '').trim();
      throw notApplicable(`json patch operation ${index} (${operation.op}): ${first}`);
    }
    throw e;
  }
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
      return runLibrary(doc, { op: 'add', path: c.path, value: clone(c.value) }, c.index);
    }
    case 'remove': {
      if (c.tokens.length === 0) fail('cannot remove the whole document');
      const found = lookup(doc, c.tokens, c.path);
      if (!found.ok) fail(found.detail);
      return runLibrary(doc, { op: 'remove', path: c.path }, c.index);
    }
    case 'replace': {
      const found = lookup(doc, c.tokens, c.path);
      if (!found.ok) fail(found.detail);
      return runLibrary(doc, { op: 'replace', path: c.path, value: clone(c.value) }, c.index);
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
      return runLibrary(doc, { op: 'copy', from: c.from ?? '', path: c.path }, c.index);
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
      const removed = runLibrary(doc, { op: 'remove', path: from }, c.index);
      const bad = checkAddTarget(removed, c.tokens, c.path);
      if (bad) fail(bad);
      return runLibrary(removed, { op: 'add', path: c.path, value: src.value }, c.index);
    }
  }
}

/**
 * Applies an RFC 6902 JSON patch. `doc` is never mutated and the result shares nothing with `doc` or
 * `patch`. Throws 400 when `patch` is not an array of objects, 413 beyond 10000 operations, and 422 Invalid
 * when an operation is malformed or does not apply (missing path, failed test, bad index, …). Paths through
 * `__proto__` or `constructor/prototype` are refused, and only own properties are ever followed.
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

/** Whether `v` is a JSON value (undefined members of objects count as absent, as in JSON.stringify). */
function isJsonValue(v: unknown): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v);
    case 'object':
      if (v === null) return true;
      if (Array.isArray(v)) return v.every(isJsonValue);
      return Object.values(v).every((x) => x === undefined || isJsonValue(x));
    default:
      return false;
  }
}

function mergeInto(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const base = isObject(target) ? target : {};
  const out: JsonObject = {};
  for (const key of Object.keys(base)) {
    if (!Object.hasOwn(patch, key) || patch[key] === undefined) setOwn(out, key, clone(base[key]));
    else if (patch[key] !== null) setOwn(out, key, mergeInto(base[key], patch[key]));
  }
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (Object.hasOwn(base, key) || value === undefined || value === null) continue;
    setOwn(out, key, mergeInto(undefined, value));
  }
  return out;
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

/** Deep equality of JSON values (key order does not matter). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

function diffObjects(original: JsonObject, modified: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(original)) {
    if (original[key] !== undefined && (!Object.hasOwn(modified, key) || modified[key] === undefined)) setOwn(patch, key, null);
  }
  for (const key of Object.keys(modified)) {
    const to = modified[key];
    if (to === undefined) continue;
    const had = Object.hasOwn(original, key) && original[key] !== undefined;
    const from = had ? original[key] : undefined;
    if (had && isObject(from) && isObject(to)) {
      const sub = diffObjects(from, to);
      if (Object.keys(sub).length > 0) setOwn(patch, key, sub);
    } else if (!had || !jsonEqual(from, to)) {
      setOwn(patch, key, clone(to));
    }
  }
  return patch;
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
