import { describe, expect, it } from 'vitest';
import { fieldErrors } from './field-error.ts';
import {
  CAUSE_RESOURCE_VERSION_TOO_LARGE,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isMethodNotSupported,
  isNotAcceptable,
  isNotFound,
  isRequestEntityTooLarge,
  isResourceExpired,
  isServerTimeout,
  isServiceUnavailable,
  isTimeout,
  isTooLargeResourceVersion,
  isTooManyRequests,
  isUnauthorized,
  isUnsupportedMediaType,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newForbidden,
  newGenerateNameConflict,
  newGone,
  newInternalError,
  newInvalid,
  newMethodNotSupported,
  newNotAcceptable,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServerTimeout,
  newServiceUnavailable,
  newTimeout,
  newTooLargeResourceVersion,
  newTooManyRequests,
  newUnauthorized,
  newUnsupportedMediaType,
  newUnsupportedMediaTypeMessage,
  OPTIMISTIC_LOCK_ERROR_MSG,
  StatusError,
  type StatusReason,
  toStatusError,
} from './status-error.ts';
import type { StatusDetails } from './types.ts';

const deployments = { group: 'apps', resource: 'deployments' };
const widgets = { group: 'example.kapi.dev', resource: 'widgets' };

/** The full metav1.Status every constructor must produce. */
function expectStatus(err: StatusError, code: number, reason: StatusReason, message: string, details?: StatusDetails): void {
  expect(err).toBeInstanceOf(StatusError);
  expect(err).toBeInstanceOf(Error);
  expect(err.name).toBe('StatusError');
  expect(err.code).toBe(code);
  expect(err.reason).toBe(reason);
  expect(err.message).toBe(message);
  const expected = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
    ...(details ? { details } : {}),
  };
  expect(err.status).toEqual(expected);
  // The wire form has no details key at all when there are none.
  expect(Object.hasOwn(err.status, 'details')).toBe(details !== undefined);
}

describe('StatusError constructors', () => {
  it('newBadRequest: 400 BadRequest with the message as given', () => {
    expectStatus(newBadRequest('unable to parse requirement'), 400, 'BadRequest', 'unable to parse requirement');
  });

  it('newUnauthorized: 401, "not authorized" when no message is given', () => {
    expectStatus(newUnauthorized(), 401, 'Unauthorized', 'not authorized');
    expectStatus(newUnauthorized(''), 401, 'Unauthorized', 'not authorized');
    expectStatus(newUnauthorized('token expired'), 401, 'Unauthorized', 'token expired');
  });

  it('newForbidden: 403 with and without a name, and for an empty resource', () => {
    expectStatus(
      newForbidden(deployments, 'web', 'User "bob" cannot get resource "deployments"'),
      403,
      'Forbidden',
      'deployments.apps "web" is forbidden: User "bob" cannot get resource "deployments"',
      { name: 'web', group: 'apps', kind: 'deployments' },
    );
    expectStatus(newForbidden('pods', '', new Error('no way')), 403, 'Forbidden', 'pods is forbidden: no way', { kind: 'pods' });
    expectStatus(
      newForbidden({ group: '', resource: '' }, '', 'User "bob" cannot get path "/healthz"'),
      403,
      'Forbidden',
      'forbidden: User "bob" cannot get path "/healthz"',
    );
  });

  it('newNotFound: 404 naming group, resource and name', () => {
    expectStatus(newNotFound(deployments, 'web'), 404, 'NotFound', 'deployments.apps "web" not found', {
      name: 'web',
      group: 'apps',
      kind: 'deployments',
    });
    expectStatus(newNotFound('pods', 'p1'), 404, 'NotFound', 'pods "p1" not found', { name: 'p1', kind: 'pods' });
    expectStatus(newNotFound('widgets.example.kapi.dev', 'w'), 404, 'NotFound', 'widgets.example.kapi.dev "w" not found', {
      name: 'w',
      group: 'example.kapi.dev',
      kind: 'widgets',
    });
  });

  it('newMethodNotSupported: 405 MethodNotAllowed', () => {
    expectStatus(
      newMethodNotSupported(widgets, 'delete'),
      405,
      'MethodNotAllowed',
      'delete is not supported on resources of kind "widgets.example.kapi.dev"',
      {
        group: 'example.kapi.dev',
        kind: 'widgets',
      },
    );
  });

  it('newNotAcceptable: 406 listing the media types', () => {
    expectStatus(
      newNotAcceptable(['application/json', 'application/yaml']),
      406,
      'NotAcceptable',
      'only the following media types are accepted: application/json, application/yaml',
    );
  });

  it('newAlreadyExists: 409 AlreadyExists', () => {
    expectStatus(newAlreadyExists(widgets, 'w1'), 409, 'AlreadyExists', 'widgets.example.kapi.dev "w1" already exists', {
      name: 'w1',
      group: 'example.kapi.dev',
      kind: 'widgets',
    });
  });

  it('newGenerateNameConflict: 409 AlreadyExists with retryAfterSeconds', () => {
    const err = newGenerateNameConflict('pods', 'web-x7k2p', 1);
    expectStatus(
      err,
      409,
      'AlreadyExists',
      'pods "web-x7k2p" already exists, the server was not able to generate a unique name for the object',
      {
        name: 'web-x7k2p',
        kind: 'pods',
        retryAfterSeconds: 1,
      },
    );
    expect(err.retryAfterSeconds).toBe(1);
  });

  it('newConflict: 409 Conflict, with the optimistic-lock wording', () => {
    expectStatus(
      newConflict(deployments, 'web', OPTIMISTIC_LOCK_ERROR_MSG),
      409,
      'Conflict',
      'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
      { name: 'web', group: 'apps', kind: 'deployments' },
    );
    expectStatus(
      newConflict('pods', 'p', new Error('Precondition failed: UID in precondition: a, UID in object meta: b')),
      409,
      'Conflict',
      'Operation cannot be fulfilled on pods "p": Precondition failed: UID in precondition: a, UID in object meta: b',
      { name: 'p', kind: 'pods' },
    );
  });

  it('newGone: 410 Gone', () => {
    expectStatus(newGone('gone away'), 410, 'Gone', 'gone away');
  });

  it('newResourceExpired: 410 Expired', () => {
    expectStatus(
      newResourceExpired('The resourceVersion for the provided watch is too old.'),
      410,
      'Expired',
      'The resourceVersion for the provided watch is too old.',
    );
  });

  it('newRequestEntityTooLarge: 413 with its prefix', () => {
    expectStatus(newRequestEntityTooLarge('limit is 3145728'), 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
  });

  it('newUnsupportedMediaType: 415 listing the accepted types', () => {
    expectStatus(
      newUnsupportedMediaType(['application/json', 'application/yaml']),
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
    );
    expectStatus(
      newUnsupportedMediaTypeMessage('apply patches are not served'),
      415,
      'UnsupportedMediaType',
      'apply patches are not served',
    );
  });

  it('newInvalid: 422 with one field error', () => {
    expectStatus(
      newInvalid({ group: 'apps', kind: 'Deployment' }, 'web', [fieldErrors.required('spec.selector')]),
      422,
      'Invalid',
      'Deployment.apps "web" is invalid: spec.selector: Required value',
      {
        name: 'web',
        group: 'apps',
        kind: 'Deployment',
        causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' }],
      },
    );
  });

  it('newInvalid: 422 with several field errors → bracketed message and one cause each', () => {
    const errs = [
      fieldErrors.invalid('metadata.name', 'Bad_Name', 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters'),
      fieldErrors.required('spec.size'),
      fieldErrors.notSupported('spec.mode', 'fast', ['slow', 'steady']),
    ];
    expectStatus(
      newInvalid({ group: 'example.kapi.dev', kind: 'Widget' }, 'Bad_Name', errs),
      422,
      'Invalid',
      'Widget.example.kapi.dev "Bad_Name" is invalid: [metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, spec.size: Required value, spec.mode: Unsupported value: "fast": supported values: "slow", "steady"]',
      {
        name: 'Bad_Name',
        group: 'example.kapi.dev',
        kind: 'Widget',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters',
            field: 'metadata.name',
          },
          { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.size' },
          {
            reason: 'FieldValueNotSupported',
            message: 'Unsupported value: "fast": supported values: "slow", "steady"',
            field: 'spec.mode',
          },
        ],
      },
    );
  });

  it('newInvalid: a string kind is used as the kind, and no errors means no ": …"', () => {
    expectStatus(
      newInvalid('Pod', 'p', [fieldErrors.forbidden('spec', 'pod updates may not change fields')]),
      422,
      'Invalid',
      'Pod "p" is invalid: spec: Forbidden: pod updates may not change fields',
      {
        name: 'p',
        kind: 'Pod',
        causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: pod updates may not change fields', field: 'spec' }],
      },
    );
    expectStatus(newInvalid({ group: '', kind: 'Pod' }, 'p', []), 422, 'Invalid', 'Pod "p" is invalid', { name: 'p', kind: 'Pod' });
  });

  it('newInvalid: duplicate messages are printed once but every cause is kept', () => {
    const e = fieldErrors.required('spec.x');
    const err = newInvalid('Pod', 'p', [e, e]);
    expect(err.message).toBe('Pod "p" is invalid: spec.x: Required value');
    expect(err.status.details?.causes).toHaveLength(2);
  });

  it('newTooManyRequests: 429 with retryAfterSeconds', () => {
    const err = newTooManyRequests('the server has received too many requests and has asked us to try again later', 1);
    expectStatus(err, 429, 'TooManyRequests', 'the server has received too many requests and has asked us to try again later', {
      retryAfterSeconds: 1,
    });
    expect(err.retryAfterSeconds).toBe(1);
  });

  it('newInternalError: 500 with the error as cause', () => {
    const boom = new Error('boom');
    const err = newInternalError(boom);
    expectStatus(err, 500, 'InternalError', 'Internal error occurred: boom', { causes: [{ message: 'boom' }] });
    expect(err.cause).toBe(boom);
    expectStatus(newInternalError('plain text'), 500, 'InternalError', 'Internal error occurred: plain text', {
      causes: [{ message: 'plain text' }],
    });
  });

  it('newServerTimeout: 500 ServerTimeout naming the operation', () => {
    const err = newServerTimeout(widgets, 'create', 2);
    expectStatus(
      err,
      500,
      'ServerTimeout',
      'The create operation against widgets.example.kapi.dev could not be completed at this time, please try again.',
      {
        name: 'create',
        group: 'example.kapi.dev',
        kind: 'widgets',
        retryAfterSeconds: 2,
      },
    );
    expect(err.retryAfterSeconds).toBe(2);
  });

  it('newServiceUnavailable: 503', () => {
    expectStatus(newServiceUnavailable('etcd is unreachable'), 503, 'ServiceUnavailable', 'etcd is unreachable');
  });

  it('newTimeout: 504 "Timeout: …", retryAfterSeconds only when given', () => {
    expectStatus(newTimeout('request did not complete within 60s'), 504, 'Timeout', 'Timeout: request did not complete within 60s');
    const err = newTimeout('x', 3);
    expectStatus(err, 504, 'Timeout', 'Timeout: x', { retryAfterSeconds: 3 });
    expect(newTimeout('x').retryAfterSeconds).toBeUndefined();
  });

  it('newTooLargeResourceVersion: 504 with a ResourceVersionTooLarge cause', () => {
    expect(CAUSE_RESOURCE_VERSION_TOO_LARGE).toBe('ResourceVersionTooLarge');
    expectStatus(newTooLargeResourceVersion(12, 10), 504, 'Timeout', 'Timeout: Too large resource version: 12, current: 10', {
      retryAfterSeconds: 1,
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    });
    expect(newTooLargeResourceVersion(5n, 4n, 0).status.details).toEqual({
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    });
  });

  it('the StatusError constructor builds a Status from parts and drops empty details', () => {
    const err = new StatusError({ code: 422, reason: 'Invalid', message: 'm', details: { name: '', group: '', causes: [] } });
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'm',
      reason: 'Invalid',
      code: 422,
    });
    expect(Object.hasOwn(err.status, 'details')).toBe(false);
    const withMeta = new StatusError({ code: 410, reason: 'Expired', message: 'old', metadata: { continue: 'tok' } });
    expect(withMeta.status.metadata).toEqual({ continue: 'tok' });
    const bare = new StatusError({ code: 500 });
    expect(bare.message).toBe('unknown error');
    expect(bare.reason).toBe('Unknown');
  });
});

describe('StatusError predicates', () => {
  const samples: [StatusReason, StatusError][] = [
    ['BadRequest', newBadRequest('x')],
    ['Unauthorized', newUnauthorized()],
    ['Forbidden', newForbidden('pods', 'p', 'no')],
    ['NotFound', newNotFound('pods', 'p')],
    ['MethodNotAllowed', newMethodNotSupported('pods', 'watch')],
    ['NotAcceptable', newNotAcceptable(['application/json'])],
    ['AlreadyExists', newAlreadyExists('pods', 'p')],
    ['AlreadyExists', newGenerateNameConflict('pods', 'p', 1)],
    ['Conflict', newConflict('pods', 'p', 'x')],
    ['Gone', newGone('x')],
    ['Expired', newResourceExpired('x')],
    ['RequestEntityTooLarge', newRequestEntityTooLarge('x')],
    ['UnsupportedMediaType', newUnsupportedMediaType(['application/json'])],
    ['UnsupportedMediaType', newUnsupportedMediaTypeMessage('x')],
    ['Invalid', newInvalid('Pod', 'p', [fieldErrors.required('spec')])],
    ['TooManyRequests', newTooManyRequests('x', 1)],
    ['InternalError', newInternalError(new Error('x'))],
    ['ServerTimeout', newServerTimeout('pods', 'get', 1)],
    ['ServiceUnavailable', newServiceUnavailable('x')],
    ['Timeout', newTimeout('x')],
    ['Timeout', newTooLargeResourceVersion(2, 1)],
  ];
  const predicates: [StatusReason, (e: unknown) => boolean][] = [
    ['BadRequest', isBadRequest],
    ['Unauthorized', isUnauthorized],
    ['Forbidden', isForbidden],
    ['NotFound', isNotFound],
    ['MethodNotAllowed', isMethodNotSupported],
    ['NotAcceptable', isNotAcceptable],
    ['AlreadyExists', isAlreadyExists],
    ['Conflict', isConflict],
    ['Gone', isGone],
    ['Expired', isResourceExpired],
    ['RequestEntityTooLarge', isRequestEntityTooLarge],
    ['UnsupportedMediaType', isUnsupportedMediaType],
    ['Invalid', isInvalid],
    ['TooManyRequests', isTooManyRequests],
    ['InternalError', isInternalError],
    ['ServerTimeout', isServerTimeout],
    ['ServiceUnavailable', isServiceUnavailable],
    ['Timeout', isTimeout],
  ];

  for (const [reason, predicate] of predicates) {
    it(`${predicate.name} is true only for ${reason}`, () => {
      expect(samples.some(([r]) => r === reason)).toBe(true);
      for (const [sampleReason, err] of samples) expect(predicate(err), `${predicate.name}(${sampleReason})`).toBe(sampleReason === reason);
    });
  }

  it('predicates are false for things that are not StatusErrors', () => {
    for (const [, predicate] of predicates) {
      expect(predicate(new Error('NotFound'))).toBe(false);
      expect(predicate(undefined)).toBe(false);
      expect(predicate(null)).toBe(false);
      expect(predicate({ reason: 'NotFound', code: 404 })).toBe(false);
    }
  });

  it('isTooLargeResourceVersion needs a Timeout carrying the ResourceVersionTooLarge cause', () => {
    expect(isTooLargeResourceVersion(newTooLargeResourceVersion(12, 10))).toBe(true);
    expect(isTooLargeResourceVersion(newTimeout('Too large resource version: 12, current: 10'))).toBe(false);
    const wrongReason = new StatusError({
      code: 500,
      reason: 'InternalError',
      message: 'x',
      details: { causes: [{ reason: CAUSE_RESOURCE_VERSION_TOO_LARGE }] },
    });
    expect(isTooLargeResourceVersion(wrongReason)).toBe(false);
    for (const [, err] of samples.filter(([r]) => r !== 'Timeout')) expect(isTooLargeResourceVersion(err)).toBe(false);
    expect(isTooLargeResourceVersion(new Error('x'))).toBe(false);
  });
});

describe('toStatusError', () => {
  it('passes StatusErrors through unchanged', () => {
    const err = newNotFound('pods', 'p');
    expect(toStatusError(err)).toBe(err);
  });

  it('uses a toStatusError() method when the thrown value has one', () => {
    const mapped = newConflict('pods', 'p', OPTIMISTIC_LOCK_ERROR_MSG);
    class StorageLikeError extends Error {
      toStatusError(): StatusError {
        expect(this).toBeInstanceOf(StorageLikeError);
        return mapped;
      }
    }
    expect(toStatusError(new StorageLikeError('conflict'))).toBe(mapped);
  });

  it('turns anything else into a 500 InternalError', () => {
    const boom = new TypeError('x is undefined');
    const err = toStatusError(boom);
    expectStatus(err, 500, 'InternalError', 'Internal error occurred: x is undefined', { causes: [{ message: 'x is undefined' }] });
    expect(err.cause).toBe(boom);
    expect(toStatusError('a string').message).toBe('Internal error occurred: a string');
    expect(toStatusError(null).message).toBe('Internal error occurred: null');
    expect(toStatusError(undefined).code).toBe(500);
  });
});
