import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { copyJson, formatMicroTime, newInternalError, type Status, StatusError, toStatusError } from '@kapi/apimachinery';
import type { AuditBackend } from '../audit/backend.ts';
import { auditResponseStatus, auditUserInfo, impersonationOf, setAuditEvent, setAuditID, writeAuditedStatus } from '../audit/context.ts';
import type { AuditPolicy } from '../audit/policy.ts';
import type { AuditEvent, AuditObjectReference, AuditStage } from '../audit/types.ts';
import { authorizerAttributesFrom } from './authorizer-attributes.ts';
import type { Filter, RequestContext } from './context.ts';

export interface AuditOptions {
  backend: AuditBackend;
  policy: AuditPolicy;
  /** Stages not sent to the backend (kube's omitStages). */
  omitStages?: readonly AuditStage[];
  /** Milliseconds since the epoch, fractions allowed (for the microseconds); default the high-resolution clock. */
  clock?: { now(): number };
  /** Called when the backend throws on a stage after RequestReceived. */
  onError?: (err: unknown) => void;
}

/** kube's request and response header carrying the audit ID (Go writes it as `Audit-Id`). */
export const AUDIT_ID_HEADER = 'Audit-Id';
const MAX_USER_AGENT_LENGTH = 1024;
const USER_AGENT_TRUNCATE_SUFFIX = '...TRUNCATED';

const hrClock = { now: () => performance.timeOrigin + performance.now() };

/**
 * kube's WithAuditInit + WithAudit: every request gets an audit ID (the incoming `Audit-ID` header, else a UUID),
 * echoed in the `Audit-Id` response header. When the policy's level is not None, an audit.k8s.io/v1 Event goes
 * to the backend at RequestReceived, at ResponseStarted for long-running requests (`ctx.longRunning`), and at
 * ResponseComplete, with the response code; a thrown StatusError is the response (the chain writes it), anything
 * else thrown is recorded as a Panic and rethrown. Handlers add objects with `recordAuditObjects`.
 */
// Where the audit filter's users found it; it lives in apimachinery (Lease clients format MicroTime too).
export { formatMicroTime };

export function withAudit(opts: AuditOptions): Filter {
  const clock = opts.clock ?? hrClock;
  const omit = new Set(opts.omitStages ?? []);
  return async (ctx, next) => {
    const incoming = ctx.req.headersDistinct['audit-id']?.[0];
    const auditID = incoming || randomUUID();
    ctx.res.setHeader(AUDIT_ID_HEADER, auditID);
    setAuditID(ctx, auditID);

    const receivedAt = clock.now();
    const impersonation = impersonationOf(ctx);
    let ev: AuditEvent | undefined;
    try {
      const attrs = authorizerAttributesFrom(ctx, impersonation?.requestor ?? ctx.user);
      const level = opts.policy(attrs);
      if (level !== 'None') {
        ev = {
          kind: 'Event',
          apiVersion: 'audit.k8s.io/v1',
          level,
          auditID,
          stage: 'RequestReceived',
          requestURI: ctx.req.url ?? '/',
          verb: attrs.verb,
          user: auditUserInfo(attrs.user),
          ...(impersonation ? { impersonatedUser: auditUserInfo(impersonation.impersonated) } : {}),
          sourceIPs: sourceIPs(ctx),
          userAgent: userAgent(ctx),
          ...(attrs.resourceRequest ? { objectRef: objectRef(attrs) } : {}),
          requestReceivedTimestamp: formatMicroTime(receivedAt),
          stageTimestamp: formatMicroTime(receivedAt),
        };
        if (!ev.userAgent) delete ev.userAgent;
      }
    } catch {
      writeAuditedStatus(ctx, newInternalError(new Error('failed to create audit event')));
      return;
    }
    if (!ev) return next();
    const event = ev;
    setAuditEvent(ctx, event, auditID);

    const emit = (stage: AuditStage): void => {
      event.stage = stage;
      event.stageTimestamp = stage === 'RequestReceived' ? event.requestReceivedTimestamp : formatMicroTime(clock.now());
      if (omit.has(stage)) return;
      opts.backend.processEvents([snapshot(event)]);
    };
    const emitQuietly = (stage: AuditStage): void => {
      try {
        emit(stage);
      } catch (err) {
        opts.onError?.(err);
      }
    };

    try {
      emit('RequestReceived');
    } catch {
      writeAuditedStatus(ctx, newInternalError(new Error('failed to store audit event')));
      return;
    }

    // kube's auditResponseWriter: the first status line written starts the response (and, for a long-running
    // request, emits ResponseStarted). Node's implicit headers go through writeHead too.
    let started = false;
    let finished = false;
    const startResponse = (code: number): void => {
      if (started || finished) return;
      started = true;
      event.responseStatus = { ...(event.responseStatus ?? { metadata: {} }), code };
      event.stage = 'ResponseStarted';
      if (ctx.longRunning) emitQuietly('ResponseStarted');
    };
    const res = ctx.res;
    const writeHead = res.writeHead;
    res.writeHead = function (this: typeof res, ...args: unknown[]) {
      startResponse(typeof args[0] === 'number' ? args[0] : res.statusCode);
      return (writeHead as (...a: unknown[]) => typeof res).apply(this, args);
    } as typeof res.writeHead;

    const complete = (): void => {
      // Nothing was written: kube fakes a success "Connection closed early".
      const faked = { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 } as const;
      if (!started && ctx.longRunning) {
        event.responseStatus = { ...faked };
        emitQuietly('ResponseStarted');
      }
      finished = true;
      event.responseStatus ??= { ...faked };
      emitQuietly('ResponseComplete');
    };

    try {
      await next();
    } catch (err) {
      if (err instanceof StatusError || typeof (err as { toStatusError?: unknown } | null)?.toStatusError === 'function') {
        // The chain will write this Status; record it as the response.
        const status: Status = toStatusError(err).status;
        event.responseStatus = auditResponseStatus(status, started ? event.responseStatus?.code : status.code);
        startResponse(status.code);
        complete();
        throw err;
      }
      finished = true;
      event.responseStatus = {
        metadata: {},
        status: 'Failure',
        message: `APIServer panic'd: ${err instanceof Error ? err.message : String(err)}`,
        reason: 'InternalError',
        code: 500,
      };
      emitQuietly('Panic');
      throw err;
    }
    complete();
  };
}

const FIELD_ORDER: readonly (keyof AuditEvent)[] = [
  'kind',
  'apiVersion',
  'level',
  'auditID',
  'stage',
  'requestURI',
  'verb',
  'user',
  'impersonatedUser',
  'sourceIPs',
  'userAgent',
  'objectRef',
  'responseStatus',
  'requestObject',
  'responseObject',
  'requestReceivedTimestamp',
  'stageTimestamp',
  'annotations',
];

/**
 * A copy for the backend, with kube's JSON field order (the Go struct's). copyJson, not structuredClone: request and
 * response objects may nest 10,000 levels, where structuredClone's recursion gives up (near 1,600).
 */
function snapshot(ev: AuditEvent): AuditEvent {
  const out: Record<string, unknown> = {};
  for (const k of FIELD_ORDER) if (ev[k] !== undefined) out[k] = copyJson(ev[k]);
  return out as unknown as AuditEvent;
}

function objectRef(attrs: ReturnType<typeof authorizerAttributesFrom>): AuditObjectReference {
  const ref: AuditObjectReference = {};
  if (attrs.resource) ref.resource = attrs.resource;
  if (attrs.namespace) ref.namespace = attrs.namespace;
  if (attrs.name) ref.name = attrs.name;
  if (attrs.apiGroup) ref.apiGroup = attrs.apiGroup;
  if (attrs.apiVersion) ref.apiVersion = attrs.apiVersion;
  if (attrs.subresource) ref.subresource = attrs.subresource;
  return ref;
}

function userAgent(ctx: RequestContext): string {
  const ua = ctx.req.headersDistinct['user-agent']?.[0] ?? '';
  return ua.length > MAX_USER_AGENT_LENGTH ? ua.slice(0, MAX_USER_AGENT_LENGTH) + USER_AGENT_TRUNCATE_SUFFIX : ua;
}

/** An IP as Go prints it: IPv4-mapped IPv6 as plain IPv4. undefined if it is not an IP. */
function normalizeIP(s: string): string | undefined {
  let ip = s.trim();
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  const kind = isIP(ip);
  if (kind === 0) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? (mapped[1] as string) : ip.toLowerCase();
}

/** kube's utilnet.SourceIPs: X-Forwarded-For entries, then X-Real-Ip if new, then the peer unless it repeats the last. */
function sourceIPs(ctx: RequestContext): string[] {
  const ips: string[] = [];
  const forwarded = ctx.req.headersDistinct['x-forwarded-for']?.[0];
  if (forwarded) {
    for (const part of forwarded.split(',')) {
      const ip = normalizeIP(part);
      if (ip) ips.push(ip);
    }
  }
  const realIP = ctx.req.headersDistinct['x-real-ip']?.[0];
  if (realIP) {
    const ip = normalizeIP(realIP);
    if (ip && !ips.includes(ip)) ips.push(ip);
  }
  const remote = ctx.req.socket.remoteAddress ? normalizeIP(ctx.req.socket.remoteAddress) : undefined;
  if (remote && (ips.length === 0 || ips[ips.length - 1] !== remote)) ips.push(remote);
  return ips;
}
