import { describe, expect, it } from 'vitest';
import { type FieldError, fieldErrorBody, fieldErrorMessage, fieldErrors, fieldErrorsMessage, OMIT_VALUE } from './field-error.ts';

describe('fieldErrors constructors and their messages', () => {
  it('required: no value printed', () => {
    const e = fieldErrors.required('spec.selector');
    expect(e).toEqual({ type: 'FieldValueRequired', field: 'spec.selector', detail: undefined });
    expect(fieldErrorMessage(e)).toBe('spec.selector: Required value');
    expect(fieldErrorMessage(fieldErrors.required('spec.selector', 'must be set for apps/v1'))).toBe(
      'spec.selector: Required value: must be set for apps/v1',
    );
  });

  it('invalid: quotes strings, prints numbers and booleans bare, objects as JSON', () => {
    expect(fieldErrorMessage(fieldErrors.invalid('metadata.name', 'Bad_Name', 'must be lower case'))).toBe(
      'metadata.name: Invalid value: "Bad_Name": must be lower case',
    );
    expect(fieldErrorMessage(fieldErrors.invalid('spec.replicas', -1, 'must be greater than or equal to 0'))).toBe(
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
    expect(fieldErrorBody(fieldErrors.invalid('spec.paused', true))).toBe('Invalid value: true');
    expect(fieldErrorBody(fieldErrors.invalid('spec.ports', [80, 443]))).toBe('Invalid value: [80,443]');
    expect(fieldErrorBody(fieldErrors.invalid('spec.x', { a: 'b' }))).toBe('Invalid value: {"a":"b"}');
  });

  it('invalid: a nil value prints as the quoted string "null", as Go does', () => {
    expect(fieldErrorBody(fieldErrors.invalid('spec.x', null, 'may not be null'))).toBe('Invalid value: "null": may not be null');
    expect(fieldErrorBody(fieldErrors.invalid('spec.x', undefined))).toBe('Invalid value: "null"');
  });

  it('OMIT_VALUE and a missing badValue print the type only', () => {
    expect(fieldErrorBody(fieldErrors.invalid('data', OMIT_VALUE, 'too big'))).toBe('Invalid value: too big');
    const noValue: FieldError = { type: 'FieldValueInvalid', field: 'x' };
    expect(fieldErrorBody(noValue)).toBe('Invalid value');
  });

  it('notSupported lists the supported values, quoted', () => {
    const e = fieldErrors.notSupported('spec.restartPolicy', 'Sometimes', ['Always', 'OnFailure', 'Never']);
    expect(e.type).toBe('FieldValueNotSupported');
    expect(fieldErrorMessage(e)).toBe(
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    );
    expect(fieldErrorMessage(fieldErrors.notSupported('spec.mode', 'x', []))).toBe('spec.mode: Unsupported value: "x"');
  });

  it('duplicate and notFound print the value', () => {
    expect(fieldErrorMessage(fieldErrors.duplicate('spec.ports[1].name', 'http'))).toBe('spec.ports[1].name: Duplicate value: "http"');
    expect(fieldErrorMessage(fieldErrors.notFound('spec.volumes[0]', 'data'))).toBe('spec.volumes[0]: Not found: "data"');
  });

  it('forbidden prints the detail but never the value', () => {
    const e = fieldErrors.forbidden('spec', 'pod updates may not change fields other than `spec.containers[*].image`');
    expect(e.type).toBe('FieldValueForbidden');
    expect(fieldErrorMessage(e)).toBe('spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`');
    expect(fieldErrorBody({ type: 'FieldValueForbidden', field: 'x', badValue: 'secret', detail: 'no' })).toBe('Forbidden: no');
  });

  it('tooLong and tooMany', () => {
    const long = fieldErrors.tooLong('metadata.annotations', 262144);
    expect(long.type).toBe('FieldValueTooLong');
    expect(fieldErrorMessage(long)).toBe('metadata.annotations: Too long: may not be more than 262144 bytes');
    expect(fieldErrorMessage(fieldErrors.tooLong('spec.x', 1))).toBe('spec.x: Too long: may not be more than 1 byte');
    expect(fieldErrorMessage(fieldErrors.tooLong('spec.x', -1))).toBe('spec.x: Too long: value is too long');
    const many = fieldErrors.tooMany('spec.items', 5, 3);
    expect(many).toEqual({ type: 'FieldValueTooMany', field: 'spec.items', badValue: 5, detail: 'must have at most 3 items' });
    expect(fieldErrorMessage(many)).toBe('spec.items: Too many: 5: must have at most 3 items');
  });

  it('typeInvalid reads "Invalid value" and internal reads "Internal error"', () => {
    const t = fieldErrors.typeInvalid('spec.replicas', 'three', 'must be an integer');
    expect(t.type).toBe('FieldValueTypeInvalid');
    expect(fieldErrorMessage(t)).toBe('spec.replicas: Invalid value: "three": must be an integer');
    const i = fieldErrors.internal('spec', new Error('conversion failed'));
    expect(i).toEqual({ type: 'InternalError', field: 'spec', detail: 'conversion failed' });
    expect(fieldErrorMessage(i)).toBe('spec: Internal error: conversion failed');
    expect(fieldErrorMessage(fieldErrors.internal('spec', 'plain'))).toBe('spec: Internal error: plain');
  });
});

describe('fieldErrorsMessage', () => {
  it('prints one error bare and several in brackets, in order', () => {
    const a = fieldErrors.required('spec.a');
    const b = fieldErrors.invalid('spec.b', 1, 'must be even');
    expect(fieldErrorsMessage([a])).toBe('spec.a: Required value');
    expect(fieldErrorsMessage([a, b])).toBe('[spec.a: Required value, spec.b: Invalid value: 1: must be even]');
  });

  it('drops duplicate messages, as utilerrors.NewAggregate does', () => {
    const a = fieldErrors.required('spec.a');
    expect(fieldErrorsMessage([a, { ...a }])).toBe('spec.a: Required value');
    expect(fieldErrorsMessage([a, fieldErrors.required('spec.b'), a])).toBe('[spec.a: Required value, spec.b: Required value]');
  });
});
