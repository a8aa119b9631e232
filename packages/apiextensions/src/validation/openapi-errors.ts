import { goFloat, goNumber, goQuote, isInt64 } from './go-text.ts';

/**
 * kube-openapi's validation errors (k8s.io/kube-openapi/pkg/validation/errors): a code, the dotted name of the
 * value, and the message kube-apiserver shows. `plain` errors are the ones kube-openapi makes with errors.New or
 * fmt.Errorf (the oneOf/anyOf/allOf/not messages, range checks); they carry no name.
 */
export type OpenAPIErrorCode =
  | 'InvalidType'
  | 'Required'
  | 'TooLong'
  | 'TooShort'
  | 'Pattern'
  | 'Enum'
  | 'MultipleOf'
  | 'Max'
  | 'Min'
  | 'Unique'
  | 'MaxItems'
  | 'MinItems'
  | 'NoAdditionalItems'
  | 'TooFewProperties'
  | 'TooManyProperties'
  | 'UnallowedProperty'
  | 'FailedAllPatternProps'
  | 'MultipleOfMustBePositive';

export type OpenAPIError =
  | {
      kind: 'validation';
      code: OpenAPIErrorCode;
      name: string;
      /** Go's Value; undefined is nil. */
      value?: unknown;
      /** Go's Valid (a limit) when the code has one. */
      valid?: number;
      /** Enum: the allowed values. */
      values?: readonly unknown[];
      message: string;
    }
  | { kind: 'plain'; message: string };

/** Every validator here runs on a request body. */
const IN = 'body';

function v(code: OpenAPIErrorCode, name: string, message: string, extra: Partial<OpenAPIError> = {}): OpenAPIError {
  return { kind: 'validation', code, name, message, ...extra } as OpenAPIError;
}

/** Go's %v of a []interface{} (enum values): `[a 1 true map[k:v]]`. */
function goSliceV(values: readonly unknown[]): string {
  return `[${values.map(goV).join(' ')}]`;
}

function goV(x: unknown): string {
  if (x === null || x === undefined) return '<nil>';
  if (typeof x === 'string') return x;
  if (typeof x === 'number') return goNumber(x);
  if (typeof x === 'boolean') return String(x);
  if (Array.isArray(x)) return goSliceV(x);
  const o = x as Record<string, unknown>;
  return `map[${Object.keys(o)
    .sort()
    .map((k) => `${k}:${goV(o[k])}`)
    .join(' ')}]`;
}

export const openAPIErrors = {
  /** errors.InvalidType: a string value is quoted into the message (it is a type or format name). */
  invalidType(name: string, typeName: string, value: unknown): OpenAPIError {
    const message =
      typeof value === 'string'
        ? `${name} in ${IN} must be of type ${typeName}: ${goQuote(value)}`
        : `${name} in ${IN} must be of type ${typeName}`;
    return v('InvalidType', name, message, { value });
  },
  required: (name: string) => v('Required', name, `${name} in ${IN} is required`),
  tooLong: (name: string, max: number, value: string) =>
    v('TooLong', name, `${name} in ${IN} should be at most ${max} chars long`, { value, valid: max }),
  tooShort: (name: string, min: number, value: string) =>
    v('TooShort', name, `${name} in ${IN} should be at least ${min} chars long`, { value, valid: min }),
  failedPattern: (name: string, pattern: string, value: string) =>
    v('Pattern', name, `${name} in ${IN} should match '${pattern}'`, { value }),
  enumFail: (name: string, value: unknown, values: readonly unknown[]) =>
    v('Enum', name, `${name} in ${IN} should be one of ${goSliceV(values)}`, { value, values }),
  /** `multiple` is printed as Go holds it: an int64 factor (integer data) or a float64. */
  notMultipleOf: (name: string, multiple: string, value: unknown) =>
    v('MultipleOf', name, `${name} in ${IN} should be a multiple of ${multiple}`, { value }),
  multipleOfMustBePositive: (name: string, factor: string, value: unknown) =>
    v('MultipleOfMustBePositive', name, `factor MultipleOf declared for ${name} must be positive: ${factor}`, { value }),
  exceedsMaximum: (name: string, max: string, exclusive: boolean, value: unknown) =>
    v('Max', name, exclusive ? `${name} in ${IN} should be less than ${max}` : `${name} in ${IN} should be less than or equal to ${max}`, {
      value,
    }),
  exceedsMinimum: (name: string, min: string, exclusive: boolean, value: unknown) =>
    v(
      'Min',
      name,
      exclusive ? `${name} in ${IN} should be greater than ${min}` : `${name} in ${IN} should be greater than or equal to ${min}`,
      { value },
    ),
  duplicateItems: (name: string) => v('Unique', name, `${name} in ${IN} shouldn't contain duplicates`),
  tooManyItems: (name: string, max: number, size: number) =>
    v('MaxItems', name, `${name} in ${IN} should have at most ${max} items`, { value: size, valid: max }),
  tooFewItems: (name: string, min: number, size: number) =>
    v('MinItems', name, `${name} in ${IN} should have at least ${min} items`, { value: size, valid: min }),
  tooFewProperties: (name: string, min: number, size: number) =>
    v('TooFewProperties', name, `${name} in ${IN} should have at least ${min} properties`, { value: size, valid: min }),
  tooManyProperties: (name: string, max: number, size: number) =>
    v('TooManyProperties', name, `${name} in ${IN} should have at most ${max} properties`, { value: size, valid: max }),
  propertyNotAllowed: (name: string, key: string) =>
    v('UnallowedProperty', name, `${name}.${key} in ${IN} is a forbidden property`, { value: key }),
  plain: (message: string): OpenAPIError => ({ kind: 'plain', message }),
};

/** `%v` of a float64 limit (kube-openapi keeps schema bounds as float64). */
export const goLimit = goFloat;
/** `%v` of a limit truncated to int64, as kube-openapi compares integer data. */
export function goIntLimit(f: number): string {
  return goNumber(Math.trunc(f));
}
export { isInt64 };
