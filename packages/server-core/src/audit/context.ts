import { copyJson, type Status, type StatusError } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';
import type { RequestContext } from '../filters/context.ts';
import { writeStatus } from '../filters/write-status.ts';
import { levelAtLeast } from './policy.ts';
import type { AuditEvent, AuditResponseStatus, AuditUserInfo } from './types.ts';

// Private keys in ctx.state; other code goes through the functions below.
const EVENT_KEY = 'kapi.audit.event';
const ID_KEY = 'kapi.audit.id';
const IMPERSONATION_KEY = 'kapi.audit.impersonation';

/** The request's audit event while withAudit records it (absent at level None or without the filter). */
export function auditEventOf(ctx: RequestContext): AuditEvent | undefined {
  return ctx.state.get(EVENT_KEY) as AuditEvent | undefined;
}

/** For withAudit only. */
export function setAuditEvent(ctx: RequestContext, ev: AuditEvent, auditID: string): void {
  ctx.state.set(EVENT_KEY, ev);
  ctx.state.set(ID_KEY, auditID);
}

/** The request's audit ID (the Audit-ID header it came with, or a fresh UUID), once withAudit has run. */
export function auditIDOf(ctx: RequestContext): string | undefined {
  return ctx.state.get(ID_KEY) as string | undefined;
}

/** For withAudit only: sets just the ID, when the policy says None. */
export function setAuditID(ctx: RequestContext, auditID: string): void {
  ctx.state.set(ID_KEY, auditID);
}

/**
 * kube's audit.AddAuditAnnotation: a key/value pair on the request's audit event; the first value of a key wins.
 * A no-op when the request is not being audited.
 */
export function addAuditAnnotation(ctx: RequestContext, key: string, value: string): void {
  const ev = auditEventOf(ctx);
  if (!ev) return;
  ev.annotations ??= {};
  if (!(key in ev.annotations)) ev.annotations[key] = value;
}

/** authentication.k8s.io/v1 UserInfo with kube's omitempty. */
export function auditUserInfo(user: UserInfo): AuditUserInfo {
  const out: AuditUserInfo = {};
  if (user.name) out.username = user.name;
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) {
    out.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  }
  return out;
}

/**
 * Impersonation calls this once it has switched `ctx.user`: the audit event names the impersonated user
 * (kube's LogImpersonatedUser) and keeps the requestor as `user`, whichever of the two filters runs first.
 */
export function noteImpersonation(ctx: RequestContext, requestor: UserInfo, impersonated: UserInfo): void {
  ctx.state.set(IMPERSONATION_KEY, { requestor, impersonated });
  const ev = auditEventOf(ctx);
  if (ev) ev.impersonatedUser = auditUserInfo(impersonated);
}

/** For withAudit: who made the request and whom they impersonate, if impersonation ran already. */
export function impersonationOf(ctx: RequestContext): { requestor: UserInfo; impersonated: UserInfo } | undefined {
  return ctx.state.get(IMPERSONATION_KEY) as { requestor: UserInfo; impersonated: UserInfo } | undefined;
}

/** The bounded fields of a Status that kube copies into `responseStatus` (audit.LogResponseObject). */
export function auditResponseStatus(status: Status, code = status.code): AuditResponseStatus {
  const out: AuditResponseStatus = { metadata: {}, code };
  if (status.status) out.status = status.status;
  if (status.message) out.message = status.message;
  if (status.reason) out.reason = status.reason;
  if (status.details) out.details = copyJson(status.details);
  // Keep kube's field order: metadata, status, message, reason, details, code.
  const { code: c, ...rest } = out;
  return { ...rest, code: c };
}

const isStatus = (o: unknown): o is Status => typeof o === 'object' && o !== null && (o as { kind?: unknown }).kind === 'Status';

/**
 * For resource handlers: the decoded request body and the object sent back, recorded on the audit event as
 * the policy's level allows (requestObject from Request, responseObject at RequestResponse). A Status
 * response also fills `responseStatus`, at any level, as kube's LogResponseObject does. Objects are copied.
 */
export function recordAuditObjects(ctx: RequestContext, objects: { requestObject?: unknown; responseObject?: unknown }): void {
  const ev = auditEventOf(ctx);
  if (!ev) return;
  if (objects.requestObject !== undefined && levelAtLeast(ev.level, 'Request')) {
    // copyJson, not structuredClone: an accepted body may nest 10,000 levels, far past structuredClone's recursion.
    ev.requestObject = copyJson(objects.requestObject);
  }
  const res = objects.responseObject;
  if (res === undefined) return;
  if (isStatus(res)) ev.responseStatus = auditResponseStatus(res, ev.responseStatus?.code ?? res.code);
  if (levelAtLeast(ev.level, 'RequestResponse')) ev.responseObject = copyJson(res);
}

/** writeStatus, recording the Status on the audit event first: filters below withAudit answer errors with this. */
export function writeAuditedStatus(ctx: RequestContext, err: StatusError): void {
  recordAuditObjects(ctx, { responseObject: err.status });
  writeStatus(ctx.res, err);
}
