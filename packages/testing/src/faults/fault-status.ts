import {
  newConflict,
  newInternalError,
  newServiceUnavailable,
  newTimeout,
  newTooManyRequests,
  OPTIMISTIC_LOCK_ERROR_MSG,
  type StatusError,
} from '@kapi/apimachinery';
import type { RequestInfo } from '@kapi/server-core';

/** The Status a failed request gets: one error, or one built from the request (to name its resource and object). */
export type FaultStatus = StatusError | ((info: RequestInfo) => StatusError);

/** The StatusError `status` gives for the request `info` describes. */
export function statusFor(status: FaultStatus, info: RequestInfo): StatusError {
  return typeof status === 'function' ? status(info) : status;
}

function resourceOf(info: RequestInfo): string {
  const gr = info.apiGroup ? `${info.resource}.${info.apiGroup}` : info.resource;
  return info.subresource ? `${gr}/${info.subresource}` : gr;
}

/** 409 Conflict in kube's words for a stale resourceVersion ("the object has been modified; …"). */
export const conflict =
  (why: string = OPTIMISTIC_LOCK_ERROR_MSG): FaultStatus =>
  (info) =>
    newConflict(resourceOf(info), info.name, why);

/** 429 TooManyRequests with a Retry-After header (and details.retryAfterSeconds) of `retryAfterSeconds`. */
export const tooManyRequests = (retryAfterSeconds = 1, message = 'too many requests, please try again later'): FaultStatus =>
  newTooManyRequests(message, retryAfterSeconds);

/** 500 InternalError: "Internal error occurred: <message>". */
export const internalError = (message = 'injected fault'): FaultStatus => newInternalError(new Error(message));

/** 503 ServiceUnavailable. */
export const serviceUnavailable = (message = 'the server is currently unable to handle the request'): FaultStatus =>
  newServiceUnavailable(message);

/** 504 Timeout, kube's answer to a request that ran past its deadline. */
export const timeout = (message = 'request did not complete within the allotted timeout'): FaultStatus => newTimeout(message);
