import {
  type FieldError,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newInternalError,
  newInvalid,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServerTimeout,
  newTooLargeResourceVersion,
  type ResourceRef,
  type Status,
  type StatusError,
  toStatusError,
} from '@kapi/apimachinery';

export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'Conflict'
  | 'InvalidObject'
  | 'Unreachable'
  | 'Expired'
  | 'TooLargeResourceVersion'
  | 'InvalidKey'
  | 'RequestTooLarge'
  | 'Internal';

export interface StorageErrorDetails {
  key?: string;
  /** Revision involved (the object's, or the requested one for TooLargeResourceVersion). */
  resourceVersion?: number;
  /** TooLargeResourceVersion: the store's revision when the read gave up. */
  currentRevision?: number;
  /** Expired continue token: a fresh token (rv -1, same start) the client may use for an inconsistent remainder. */
  continue?: string;
  /** InvalidObject: what is wrong, per field. */
  fieldErrors?: FieldError[];
  cause?: unknown;
}

/**
 * An error from a Storage backend. The registry maps it to a Status with its resource's name
 * (`toStatusError(resource, name)`), as ../SEMANTICS.md's table says.
 */
export class StorageError extends Error {
  readonly code: StorageErrorCode;
  readonly key: string;
  readonly details: StorageErrorDetails;

  constructor(code: StorageErrorCode, message: string, details: StorageErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'StorageError';
    this.code = code;
    this.key = details.key ?? '';
    this.details = details;
  }

  /** The Status a client sees. `resource` and `name` word the message ("widgets.example.kapi.dev \"foo\" not found"). */
  toStatusError(resource: ResourceRef = '', name?: string): StatusError {
    const n = name ?? this.key.slice(this.key.lastIndexOf('/') + 1);
    switch (this.code) {
      case 'KeyNotFound':
        return newNotFound(resource, n);
      case 'KeyExists':
        return newAlreadyExists(resource, n);
      case 'Conflict':
        return newConflict(resource, n, this.message);
      case 'Expired': {
        const err = newResourceExpired(this.message);
        if (this.details.continue) err.status.metadata = { continue: this.details.continue };
        return err;
      }
      case 'TooLargeResourceVersion':
        return newTooLargeResourceVersion(this.details.resourceVersion ?? 0, this.details.currentRevision ?? 0, 1);
      case 'Unreachable':
        return newServerTimeout(resource, 'request', 2);
      case 'RequestTooLarge':
        return newRequestEntityTooLarge(this.message);
      case 'InvalidKey':
        // A key no object can have: bad input from the request, never a server fault (kube's key functions answer 400).
        return newBadRequest(this.message);
      case 'InvalidObject':
        return this.details.fieldErrors?.length ? newInvalid(resource as string, n, this.details.fieldErrors) : newInternalError(this);
      default:
        return newInternalError(this);
    }
  }
}

/**
 * The Status a watch ends with for `err` (the ERROR event's object). As `toStatusError`, except that an Unreachable
 * backend's Status (kube's 500 ServerTimeout, retry after 2 s) carries the storage error's message — how long the
 * backend has been unreachable, a failed TLS handshake and what to check — instead of "could not be completed at this
 * time": a watch has no caller to throw the error to, so its Status is all a watch client ever sees.
 */
export function watchStatusOf(err: unknown): Status {
  const status = toStatusError(err).status;
  return isStorageError(err, 'Unreachable') ? { ...status, message: err.message } : status;
}

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}

/** Messages kube-apiserver uses for these conditions; clients match some of them. */
export const MESSAGES = {
  listExpired: 'The resourceVersion for the provided list is too old.',
  watchExpired: 'The resourceVersion for the provided watch is too old.',
  continueExpired:
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
  inconsistentContinue:
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
  rvOnCreate: 'resourceVersion should not be set on objects to be created',
} as const;

export const storageErrors = {
  keyNotFound: (key: string, rv = 0) => new StorageError('KeyNotFound', `Key not found: ${key}`, { key, resourceVersion: rv }),
  keyExists: (key: string, rv = 0) => new StorageError('KeyExists', `Key exists: ${key}`, { key, resourceVersion: rv }),
  conflict: (key: string, why: string, rv = 0) => new StorageError('Conflict', why, { key, resourceVersion: rv }),
  invalidObject: (key: string, why: string, fieldErrors?: FieldError[]) => new StorageError('InvalidObject', why, { key, fieldErrors }),
  unreachable: (key: string, cause?: unknown) =>
    new StorageError('Unreachable', `server unreachable${cause instanceof Error ? `: ${cause.message}` : ''}`, { key, cause }),
  expired: (message: string, extra: StorageErrorDetails = {}) => new StorageError('Expired', message, extra),
  tooLargeResourceVersion: (requested: number, current: number) =>
    new StorageError('TooLargeResourceVersion', `Too large resource version: ${requested}, current: ${current}`, {
      resourceVersion: requested,
      currentRevision: current,
    }),
  /** The backend refuses requests this large (etcd: --max-request-bytes, 1.5 MiB by default). Nothing was written. */
  requestTooLarge: (key: string, bytes: number, limit: number) =>
    new StorageError('RequestTooLarge', `object of ${bytes} bytes exceeds the storage request limit of ${limit} bytes`, { key }),
  /** The backend answered with something it should never answer (a script error, a corrupt value): not retryable. */
  internal: (key: string, cause: unknown) =>
    new StorageError('Internal', `storage internal error: ${cause instanceof Error ? cause.message : String(cause)}`, { key, cause }),
  invalidKey: (key: string, why: 'empty key' | 'invalid key') => new StorageError('InvalidKey', `${why}: ${JSON.stringify(key)}`, { key }),
};
