import { stringifyJson } from './json-data.ts';
/**
 * Field validation errors (k8s.io/apimachinery/pkg/util/validation/field): a path, a type, the bad value and
 * a detail. They become the causes of an Invalid Status.
 */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Marks a field error whose value is not to be printed. */
export const OMIT_VALUE: unique symbol = Symbol('omitValue');

export interface FieldError {
  type: FieldErrorType;
  /** Dotted path with indexes and keys: `spec.containers[0].name`, `metadata.labels[app]`. */
  field: string;
  badValue?: unknown;
  detail?: string;
}

function formatValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  // Go's ErrorBody turns a nil value into the string "null" and prints it quoted.
  if (v === null || v === undefined) return '"null"';
  if (typeof v === 'object') return stringifyJson(v);
  return String(v);
}

/** The message without the field path, as Kubernetes' ErrorBody() words it. */
export function fieldErrorBody(e: FieldError): string {
  let s: string;
  switch (e.type) {
    case 'FieldValueRequired':
    case 'FieldValueForbidden':
    case 'FieldValueTooLong':
    case 'InternalError':
      s = TYPE_TEXT[e.type];
      break;
    default:
      s = e.badValue === OMIT_VALUE || !('badValue' in e) ? TYPE_TEXT[e.type] : `${TYPE_TEXT[e.type]}: ${formatValue(e.badValue)}`;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** `field: body`. */
export function fieldErrorMessage(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/** One field.ErrorList aggregated the way utilerrors.NewAggregate prints it. */
export function fieldErrorsMessage(errs: readonly FieldError[]): string {
  const msgs = [...new Set(errs.map(fieldErrorMessage))];
  return msgs.length === 1 ? (msgs[0] as string) : `[${msgs.join(', ')}]`;
}

export const fieldErrors = {
  required: (field: string, detail?: string): FieldError => ({ type: 'FieldValueRequired', field, detail }),
  invalid: (field: string, badValue: unknown, detail?: string): FieldError => ({ type: 'FieldValueInvalid', field, badValue, detail }),
  notSupported: (field: string, badValue: unknown, valid: readonly string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    badValue,
    detail: valid.length ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}` : undefined,
  }),
  duplicate: (field: string, badValue: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, badValue }),
  forbidden: (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, detail }),
  notFound: (field: string, badValue: unknown): FieldError => ({ type: 'FieldValueNotFound', field, badValue }),
  /** field.TooLong: "byte" when the limit is 1, and no figure when the limit is unknown (negative). */
  tooLong: (field: string, maxLength: number): FieldError => ({
    type: 'FieldValueTooLong',
    field,
    detail: maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` : 'value is too long',
  }),
  tooMany: (field: string, actual: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field,
    badValue: actual,
    detail: `must have at most ${max} items`,
  }),
  typeInvalid: (field: string, badValue: unknown, detail: string): FieldError => ({
    type: 'FieldValueTypeInvalid',
    field,
    badValue,
    detail,
  }),
  internal: (field: string, err: unknown): FieldError => ({
    type: 'InternalError',
    field,
    detail: err instanceof Error ? err.message : String(err),
  }),
};
