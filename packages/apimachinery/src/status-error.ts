import { type FieldError, fieldErrorBody, fieldErrorsMessage } from './field-error.ts';
import { formatGroupKind, formatGroupResource, type GroupKind, type GroupResource } from './group-version.ts';
import type { Status, StatusCause, StatusDetails } from './types.ts';

/** metav1.StatusReason values kapi produces. */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'Invalid'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServerTimeout'
  | 'ServiceUnavailable'
  | 'Timeout'
  | 'Unknown';

/** Cause type on the 504 for a resourceVersion beyond the store's current revision. */
export const CAUSE_RESOURCE_VERSION_TOO_LARGE = 'ResourceVersionTooLarge';

/** A group/resource given as an object or as its printed form ("widgets.example.kapi.dev"). */
export type ResourceRef = GroupResource | string;

function grString(r: ResourceRef): string {
  return typeof r === 'string' ? r : formatGroupResource(r);
}
function grDetails(r: ResourceRef): { group?: string; kind?: string } {
  if (typeof r === 'string') {
    const dot = r.indexOf('.');
    return dot < 0 ? { group: '', kind: r } : { group: r.slice(dot + 1), kind: r.slice(0, dot) };
  }
  return { group: r.group, kind: r.resource };
}
function clean(d: StatusDetails): StatusDetails | undefined {
  const out: StatusDetails = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.uid) out.uid = d.uid;
  if (d.causes?.length) out.causes = d.causes;
  if (d.retryAfterSeconds) out.retryAfterSeconds = d.retryAfterSeconds;
  return Object.keys(out).length ? out : undefined;
}

/**
 * An error that reaches a client as a metav1.Status. Every layer throws one of these (or something
 * `toStatusError` maps to one); the HTTP layer writes `status` as the body and `code` as the status code.
 */
export class StatusError extends Error {
  readonly status: Status;

  constructor(
    status: Omit<Status, 'kind' | 'apiVersion' | 'metadata' | 'status'> & { metadata?: Status['metadata'] },
    options?: { cause?: unknown },
  ) {
    super(status.message ?? status.reason ?? 'unknown error', options);
    this.name = 'StatusError';
    const details = status.details ? clean(status.details) : undefined;
    this.status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: status.metadata ?? {},
      status: 'Failure',
      message: status.message,
      reason: status.reason,
      ...(details ? { details } : {}),
      code: status.code,
    };
  }

  get code(): number {
    return this.status.code;
  }
  get reason(): StatusReason {
    return (this.status.reason ?? 'Unknown') as StatusReason;
  }
  get retryAfterSeconds(): number | undefined {
    return this.status.details?.retryAfterSeconds;
  }
}

function make(code: number, reason: StatusReason, message: string, details: StatusDetails = {}, cause?: unknown): StatusError {
  return new StatusError({ code, reason, message, details }, cause === undefined ? undefined : { cause });
}

/** 400: the request is malformed (bad selector, bad resourceVersion, bad continue token). */
export const newBadRequest = (message: string): StatusError => make(400, 'BadRequest', message);
/** 401. */
export const newUnauthorized = (message?: string): StatusError => make(401, 'Unauthorized', message || 'not authorized');
/** 403: `<resource> "<name>" is forbidden: <why>`. */
export function newForbidden(resource: ResourceRef, name: string, why: string | Error): StatusError {
  const w = typeof why === 'string' ? why : why.message;
  const gr = grString(resource);
  // An empty resource (e.g. a non-resource URL) reads "forbidden: <why>", as in Kubernetes.
  const message = gr === '' ? `forbidden: ${w}` : name ? `${gr} "${name}" is forbidden: ${w}` : `${gr} is forbidden: ${w}`;
  return make(403, 'Forbidden', message, { ...grDetails(resource), name });
}
/** 404: `<resource> "<name>" not found`. */
export function newNotFound(resource: ResourceRef, name: string): StatusError {
  return make(404, 'NotFound', `${grString(resource)} "${name}" not found`, { ...grDetails(resource), name });
}
/** 405: `<action> is not supported on resources of kind "<resource>"`. */
export function newMethodNotSupported(resource: ResourceRef, action: string): StatusError {
  return make(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${grString(resource)}"`, grDetails(resource));
}
/** 406: none of the media types the client accepts can be produced. */
export function newNotAcceptable(accepted: readonly string[]): StatusError {
  return make(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}
/** 409: `<resource> "<name>" already exists`. */
export function newAlreadyExists(resource: ResourceRef, name: string): StatusError {
  return make(409, 'AlreadyExists', `${grString(resource)} "${name}" already exists`, { ...grDetails(resource), name });
}
/** 409 for a generateName collision that survived retries; the client may retry. */
export function newGenerateNameConflict(resource: ResourceRef, name: string, retryAfterSeconds: number): StatusError {
  return make(
    409,
    'AlreadyExists',
    `${grString(resource)} "${name}" already exists, the server was not able to generate a unique name for the object`,
    { ...grDetails(resource), name, retryAfterSeconds },
  );
}
/** 409: `Operation cannot be fulfilled on <resource> "<name>": <why>`. */
export function newConflict(resource: ResourceRef, name: string, why: string | Error): StatusError {
  const w = typeof why === 'string' ? why : why.message;
  return make(409, 'Conflict', `Operation cannot be fulfilled on ${grString(resource)} "${name}": ${w}`, { ...grDetails(resource), name });
}
/** The `why` of the conflict for a stale resourceVersion on update, in Kubernetes' words. */
export const OPTIMISTIC_LOCK_ERROR_MSG = 'the object has been modified; please apply your changes to the latest version and try again';
/** 410 Gone. */
export const newGone = (message: string): StatusError => make(410, 'Gone', message);
/** 410 Expired: a resourceVersion or continue token older than the store's history. */
export const newResourceExpired = (message: string): StatusError => make(410, 'Expired', message);
/** 413. */
export const newRequestEntityTooLarge = (message: string): StatusError =>
  make(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
/** 415: the body's content type is not one the server reads. */
export function newUnsupportedMediaType(accepted: readonly string[]): StatusError {
  return make(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}
/** 415 with a message of the caller's (e.g. a patch type not served yet). */
export const newUnsupportedMediaTypeMessage = (message: string): StatusError => make(415, 'UnsupportedMediaType', message);
/** 422: `<Kind.group> "<name>" is invalid: <errors>`, one cause per field error. */
export function newInvalid(kind: GroupKind | string, name: string, errs: readonly FieldError[]): StatusError {
  const gk = typeof kind === 'string' ? kind : formatGroupKind(kind);
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  const group = typeof kind === 'string' ? '' : kind.group;
  const kindName = typeof kind === 'string' ? kind : kind.kind;
  const message = errs.length ? `${gk} "${name}" is invalid: ${fieldErrorsMessage(errs)}` : `${gk} "${name}" is invalid`;
  return make(422, 'Invalid', message, { group, kind: kindName, name, causes });
}
/** 429 with Retry-After. */
export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return make(429, 'TooManyRequests', message, { retryAfterSeconds });
}
/** 500: `Internal error occurred: <err>`. */
export function newInternalError(err: unknown): StatusError {
  const msg = err instanceof Error ? err.message : String(err);
  return make(500, 'InternalError', `Internal error occurred: ${msg}`, { causes: [{ message: msg }] }, err);
}
/** 500 ServerTimeout: the operation could not finish in time (e.g. the backend did not answer). */
export function newServerTimeout(resource: ResourceRef, operation: string, retryAfterSeconds: number): StatusError {
  return make(
    500,
    'ServerTimeout',
    `The ${operation} operation against ${grString(resource)} could not be completed at this time, please try again.`,
    { ...grDetails(resource), name: operation, retryAfterSeconds },
  );
}
/** 503. */
export const newServiceUnavailable = (message: string): StatusError => make(503, 'ServiceUnavailable', message);
/** 504: `Timeout: <message>`. */
export function newTimeout(message: string, retryAfterSeconds = 0): StatusError {
  return make(504, 'Timeout', `Timeout: ${message}`, { retryAfterSeconds });
}
/** 504 for a read at a resourceVersion the store has not reached: carries a ResourceVersionTooLarge cause. */
export function newTooLargeResourceVersion(requested: number | bigint, current: number | bigint, retryAfterSeconds = 1): StatusError {
  const err = newTimeout(`Too large resource version: ${requested}, current: ${current}`, retryAfterSeconds);
  err.status.details = {
    ...err.status.details,
    causes: [{ reason: CAUSE_RESOURCE_VERSION_TOO_LARGE, message: 'Too large resource version' }],
  };
  return err;
}

function reasonOf(err: unknown): StatusReason | undefined {
  return err instanceof StatusError ? err.reason : undefined;
}
export const isBadRequest = (e: unknown): boolean => reasonOf(e) === 'BadRequest';
export const isUnauthorized = (e: unknown): boolean => reasonOf(e) === 'Unauthorized';
export const isForbidden = (e: unknown): boolean => reasonOf(e) === 'Forbidden';
export const isNotFound = (e: unknown): boolean => reasonOf(e) === 'NotFound';
export const isMethodNotSupported = (e: unknown): boolean => reasonOf(e) === 'MethodNotAllowed';
export const isNotAcceptable = (e: unknown): boolean => reasonOf(e) === 'NotAcceptable';
export const isAlreadyExists = (e: unknown): boolean => reasonOf(e) === 'AlreadyExists';
export const isConflict = (e: unknown): boolean => reasonOf(e) === 'Conflict';
export const isGone = (e: unknown): boolean => reasonOf(e) === 'Gone';
export const isResourceExpired = (e: unknown): boolean => reasonOf(e) === 'Expired';
export const isRequestEntityTooLarge = (e: unknown): boolean => reasonOf(e) === 'RequestEntityTooLarge';
export const isUnsupportedMediaType = (e: unknown): boolean => reasonOf(e) === 'UnsupportedMediaType';
export const isInvalid = (e: unknown): boolean => reasonOf(e) === 'Invalid';
export const isTooManyRequests = (e: unknown): boolean => reasonOf(e) === 'TooManyRequests';
export const isInternalError = (e: unknown): boolean => reasonOf(e) === 'InternalError';
export const isServerTimeout = (e: unknown): boolean => reasonOf(e) === 'ServerTimeout';
export const isServiceUnavailable = (e: unknown): boolean => reasonOf(e) === 'ServiceUnavailable';
export const isTimeout = (e: unknown): boolean => reasonOf(e) === 'Timeout';
/** A 504 whose cause says the requested resourceVersion is ahead of the store. */
export function isTooLargeResourceVersion(e: unknown): boolean {
  return isTimeout(e) && !!(e as StatusError).status.details?.causes?.some((c) => c.reason === CAUSE_RESOURCE_VERSION_TOO_LARGE);
}

/** Anything thrown → a StatusError: StatusErrors pass through, everything else is a 500. */
export function toStatusError(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  const converted = (err as { toStatusError?: () => StatusError } | null)?.toStatusError;
  if (typeof converted === 'function') return converted.call(err);
  return newInternalError(err);
}
