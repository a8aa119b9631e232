import { StatusError } from '@kapi/apimachinery';
import { stringify } from 'yaml';
import type { RequestContext } from '../filters/context.ts';
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

/** The body of `value` in the negotiated media type (pretty JSON indents by two spaces, as Go's json.Indent). */
export function encodeBody(value: unknown, mediaType: OutputMediaType, pretty: boolean): string {
  if (mediaType === 'application/yaml') return stringify(sortedKeys(value), { lineWidth: 0, aliasDuplicateObjects: false });
  return pretty ? `${JSON.stringify(value, null, 2)}\n` : JSON.stringify(value);
}

/** Encodes and writes one response object. */
export function writeObject(ctx: RequestContext, code: number, value: unknown, mediaType: OutputMediaType = 'application/json'): void {
  writeJSON(ctx, code, encodeBody(value, mediaType, wantsPretty(ctx)), mediaType);
}
