import { type JsonObject, type JsonRendering, type KubeObject, renderJson, StatusError, stringifyJson } from '@kapi/apimachinery';
import { encodedObject } from '@kapi/watchcache';
import { stringify } from 'yaml';
import type { RequestContext } from '../filters/context.ts';
import { indentJson } from './indent-json.ts';
import type { OutputMediaType } from './negotiation.ts';

/** A Status with `details: {}`, as apierrors.NewGenericServerResponse makes (StatusError drops empty details). */
function genericServerResponse(code: number, reason: 'NotFound' | 'MethodNotAllowed', message: string): StatusError {
  const err = new StatusError({ code, reason, message });
  // Re-add code after details so the body's keys keep metav1.Status' order.
  Reflect.deleteProperty(err.status, 'code');
  Object.assign(err.status, { details: {}, code });
  return err;
}

/** kube-apiserver's answer for a path nothing serves: 404 Status, reason NotFound, empty details. */
export function pathNotFound(): StatusError {
  return genericServerResponse(404, 'NotFound', 'the server could not find the requested resource');
}

/**
 * kube-apiserver's answer for a method a served path has no route for (POST to an object, DELETE of the collection
 * of a kind without deletecollection): go-restful's 405 turned into a Status, reason MethodNotAllowed, empty details.
 */
export function methodNotAllowed(): StatusError {
  return genericServerResponse(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
}

/**
 * Whether to indent JSON: `?pretty=true|1`, else (no pretty parameter) when the User-Agent is curl, Wget or a
 * browser, as kube-apiserver's isPrettyPrint decides.
 */
export function wantsPretty(ctx: RequestContext): boolean {
  const p = ctx.url.searchParams.get('pretty');
  if (p !== null) return p === 'true' || p === '1';
  const ua = ctx.req.headers['user-agent'] ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

/** Writes bytes already encoded as JSON (or any body) with its Content-Type; HEAD gets the headers only. */
export function writeJSON(ctx: RequestContext, code: number, body: Uint8Array | string, contentType = 'application/json'): void {
  const res = ctx.res;
  res.statusCode = code;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  if (ctx.req.method === 'HEAD') res.end();
  else res.end(body);
}

/** Sorts object keys recursively: sigs.k8s.io/yaml goes through a Go map, whose YAML has its keys sorted. */
function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortedKeys((v as Record<string, unknown>)[k]);
  return out;
}

/**
 * The body of `value` in the negotiated media type (pretty JSON indents by two spaces, as Go's json.Indent).
 * An accepted object may nest 10,000 levels, deeper than the native encoders' recursion reaches (about 4,000 for
 * JSON.stringify, fewer for the yaml package): the fast encoder runs first, an explicit-stack one when it gives up.
 */
export function encodeBody(value: unknown, mediaType: OutputMediaType, pretty: boolean): string {
  if (mediaType === 'application/yaml') return encodeYAML(value);
  return pretty ? `${prettyJSON(value)}\n` : stringifyJson(value);
}

function prettyJSON(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return indentJson(stringifyJson(value));
  }
}

function encodeYAML(value: unknown): string {
  try {
    return stringify(sortedKeys(value), { lineWidth: 0, aliasDuplicateObjects: false });
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    // Too deep for the yaml package: JSON is YAML too (flow style), with keys sorted as Go's map gives them.
    return `${renderJson(value, SORTED_JSON)}\n`;
  }
}

/** JSON.stringify's text with object keys sorted (undefined members and functions left out, as it does). */
const SORTED_JSON: JsonRendering = {
  scalar: (v) => JSON.stringify(v) ?? 'null',
  keys: (o: JsonObject) =>
    Object.keys(o)
      .filter((k) => o[k] !== undefined && typeof o[k] !== 'function')
      .sort(),
  key: (k) => `${JSON.stringify(k)}:`,
  item: (v) => (v === undefined || typeof v === 'function' ? null : v),
  array: ['[', ',', ']'],
  object: ['{', ',', '}'],
};

const utf8 = new TextEncoder();
const ITEMS_OPEN = utf8.encode(',"items":[');
const COMMA = utf8.encode(',');
const LIST_CLOSE = utf8.encode(']}');

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Compact JSON of a response value, reusing the shared encoding of every object the watch cache handed out
 * (`encodedObject`: one encode per object version, shared with watch streams and other lists). A list is written
 * as its envelope plus the items' shared bytes; anything else that is not frozen is encoded afresh.
 */
export function compactJSON(value: unknown): Uint8Array {
  if (!isRecord(value)) return utf8.encode(stringifyJson(value));
  if (Object.isFrozen(value)) return encodedObject(value as unknown as KubeObject);
  const items = value.items;
  if (!Array.isArray(items) || !items.every((i) => isRecord(i) && Object.isFrozen(i))) return utf8.encode(stringifyJson(value));
  const { items: _items, ...envelope } = value;
  const head = utf8.encode(stringifyJson(envelope).slice(0, -1));
  const parts: Uint8Array[] = [head.length > 1 ? ITEMS_OPEN : ITEMS_OPEN.subarray(1)];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(encodedObject(item as KubeObject));
  });
  parts.push(LIST_CLOSE);
  const out = new Uint8Array(head.length + parts.reduce((n, p) => n + p.length, 0));
  out.set(head, 0);
  let at = head.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Encodes and writes one response object (compact JSON from shared encodings where it can). */
export function writeObject(ctx: RequestContext, code: number, value: unknown, mediaType: OutputMediaType = 'application/json'): void {
  const pretty = wantsPretty(ctx);
  const body = mediaType === 'application/json' && !pretty ? compactJSON(value) : encodeBody(value, mediaType, pretty);
  writeJSON(ctx, code, body, mediaType);
}
