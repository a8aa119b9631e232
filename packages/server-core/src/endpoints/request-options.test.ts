import type { StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { deleteOptionsOf, listOptionsOf, parseBoolParam, watchOptionsOf, writeOptionsOf } from './request-options.ts';

const q = (s: string) => new URLSearchParams(s);

function statusOf(fn: () => unknown): StatusError['status'] {
  try {
    fn();
  } catch (err) {
    return (err as StatusError).status;
  }
  throw new Error('expected an error');
}

describe('parseBoolParam', () => {
  it('accepts strconv.ParseBool’s spellings; anything else is 400', () => {
    for (const v of ['1', 't', 'T', 'true', 'TRUE', 'True']) expect(parseBoolParam(q(`x=${v}`), 'x')).toBe(true);
    for (const v of ['0', 'f', 'F', 'false', 'FALSE', 'False', '']) expect(parseBoolParam(q(`x=${v}`), 'x')).toBe(false);
    expect(parseBoolParam(q(''), 'x')).toBeUndefined();
    expect(statusOf(() => parseBoolParam(q('x=yes'), 'x'))).toMatchObject({
      code: 400,
      message: 'strconv.ParseBool: parsing "yes": invalid syntax',
    });
  });
});

describe('listOptionsOf / watchOptionsOf', () => {
  it('reads selectors, limit, continue and resourceVersion', () => {
    expect(
      listOptionsOf(
        q('labelSelector=a%3Db&fieldSelector=metadata.name%3Dx&limit=5&continue=tok&resourceVersion=7&resourceVersionMatch=Exact'),
      ),
    ).toEqual({
      watch: false,
      labelSelector: 'a=b',
      fieldSelector: 'metadata.name=x',
      limit: 5,
      continue: 'tok',
      resourceVersion: '7',
      resourceVersionMatch: 'Exact',
    });
    expect(listOptionsOf(q('watch=1')).watch).toBe(true);
    expect(statusOf(() => listOptionsOf(q('limit=ten')))).toMatchObject({
      code: 400,
      message: 'strconv.ParseInt: parsing "ten": invalid syntax',
    });
  });

  it('an unknown resourceVersionMatch is 422 on ListOptions', () => {
    expect(statusOf(() => listOptionsOf(q('resourceVersion=1&resourceVersionMatch=Newest')))).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
    });
  });

  it('watch parameters', () => {
    expect(watchOptionsOf(q('allowWatchBookmarks=true&sendInitialEvents=false&timeoutSeconds=30'))).toEqual({
      allowWatchBookmarks: true,
      sendInitialEvents: false,
      timeoutSeconds: 30,
    });
    expect(watchOptionsOf(q(''))).toEqual({});
  });
});

describe('writeOptionsOf', () => {
  it('dryRun=All, fieldValidation and fieldManager', () => {
    expect(writeOptionsOf(q('dryRun=All&fieldValidation=Strict&fieldManager=me'), 'CreateOptions')).toEqual({
      dryRun: true,
      fieldValidation: 'Strict',
      fieldManager: 'me',
    });
    expect(writeOptionsOf(q(''), 'UpdateOptions')).toEqual({ dryRun: false });
  });

  it('invalid values are 422 on the options kind, in ValidateCreateOptions’ order and wording', () => {
    const st = statusOf(() =>
      writeOptionsOf(q(`dryRun=All&dryRun=Foo&fieldValidation=Loud&fieldManager=${'m'.repeat(129)}`), 'PatchOptions'),
    );
    expect(st).toMatchObject({ code: 422, reason: 'Invalid', details: { group: 'meta.k8s.io', kind: 'PatchOptions' } });
    expect(st.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: [fieldManager: Too long: may not be more than 128 bytes, dryRun: Unsupported value: []string{"All", "Foo"}: supported values: "All", fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"]',
    );
    expect(st.details?.causes?.map((c) => c.field)).toEqual(['fieldManager', 'dryRun', 'fieldValidation']);
  });
});

describe('PatchOptions (ValidatePatchOptions)', () => {
  it('force only with an apply patch, which needs a fieldManager', () => {
    expect(writeOptionsOf(q('fieldManager=me&force=true'), 'PatchOptions', 'apply')).toEqual({
      dryRun: false,
      fieldManager: 'me',
      force: true,
    });
    expect(writeOptionsOf(q('fieldManager=me&force=false'), 'PatchOptions', 'apply')).toMatchObject({ force: false });
    expect(writeOptionsOf(q(''), 'PatchOptions', 'merge')).toEqual({ dryRun: false });
    expect(statusOf(() => writeOptionsOf(q('force=true'), 'PatchOptions', 'merge')).message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    expect(statusOf(() => writeOptionsOf(q('force=false'), 'PatchOptions', 'json')).message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    expect(statusOf(() => writeOptionsOf(q(''), 'PatchOptions', 'apply')).message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    expect(statusOf(() => writeOptionsOf(q('force=maybe&fieldManager=m'), 'PatchOptions', 'apply')).message).toBe(
      'strconv.ParseBool: parsing "maybe": invalid syntax',
    );
  });

  it('a fieldManager with unprintable characters is invalid, at its byte offset', () => {
    const st = statusOf(() => writeOptionsOf(q('fieldManager=é%09x'), 'CreateOptions'));
    expect(st.message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "é\\tx": invalid character U+0009 (at position 2)',
    );
    // 128 bytes of two-byte characters is 64 characters.
    expect(statusOf(() => writeOptionsOf(q(`fieldManager=${'é'.repeat(65)}`), 'UpdateOptions')).message).toBe(
      'UpdateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
  });
});

describe('deleteOptionsOf', () => {
  const body = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

  it('reads the query when there is no body, and the body when there is one', () => {
    expect(deleteOptionsOf(q('gracePeriodSeconds=0&propagationPolicy=Foreground&dryRun=All'), undefined)).toEqual({
      gracePeriodSeconds: 0,
      propagationPolicy: 'Foreground',
      dryRun: true,
    });
    expect(
      deleteOptionsOf(
        q('propagationPolicy=Foreground'),
        body({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan', preconditions: { uid: 'u', resourceVersion: '5' } }),
      ),
    ).toEqual({ propagationPolicy: 'Orphan', preconditions: { uid: 'u', resourceVersion: '5' } });
    expect(deleteOptionsOf(q(''), body({ orphanDependents: false }))).toEqual({ propagationPolicy: 'Background' });
  });

  it('invalid options are 422 on DeleteOptions; an undecodable body is 400', () => {
    expect(statusOf(() => deleteOptionsOf(q(''), body({ propagationPolicy: 'Sideways' })))).toMatchObject({
      code: 422,
      message:
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Orphan", "Background", "Foreground"',
    });
    expect(statusOf(() => deleteOptionsOf(q(''), body({ dryRun: ['Foo'] }))).message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Foo"}: supported values: "All"',
    );
    expect(statusOf(() => deleteOptionsOf(q(''), body({ orphanDependents: true, propagationPolicy: 'Orphan' }))).code).toBe(422);
    expect(statusOf(() => deleteOptionsOf(q(''), new TextEncoder().encode('{'))).code).toBe(400);
  });
});
