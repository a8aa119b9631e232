import { type FieldError, fieldErrors, OMIT_VALUE } from '@kapi/apimachinery';
import { goJSON } from './go-text.ts';
import type { OpenAPIError } from './openapi-errors.ts';

/** field.Path as printed: null is Go's nil path, printed `<nil>`. */
type FieldPath = string | null;

function pathString(p: FieldPath): string {
  return p ?? '<nil>';
}

function child(p: FieldPath, name: string): string {
  return p === null ? name : `${p}.${name}`;
}

/**
 * kubeOpenAPIResultToFieldErrors (apiextensions-apiserver validation.go): each kube-openapi error becomes a field
 * error at `fldPath` + its name (leading dot dropped); the oneOf/anyOf/allOf/not and range messages, which have
 * no name, sit on `fldPath` itself with the value "".
 */
export function toFieldErrors(fldPath: string | null, errors: readonly OpenAPIError[]): FieldError[] {
  const out: FieldError[] = [];
  for (const err of errors) {
    if (err.kind === 'plain') {
      out.push(fieldErrors.invalid(pathString(fldPath), '', err.message));
      continue;
    }
    const field = pathString(err.name.length > 0 && err.name !== '.' ? child(fldPath, err.name.replace(/^\./, '')) : fldPath);
    const value = err.value === undefined ? '' : err.value;
    switch (err.code) {
      case 'Required':
        out.push({ type: 'FieldValueRequired', field });
        break;
      case 'Enum':
        out.push(
          fieldErrors.notSupported(
            field,
            err.value === undefined ? null : err.value,
            (err.values ?? []).map((v) => (typeof v === 'string' ? v : goJSON(v))),
          ),
        );
        break;
      case 'TooLong':
        out.push(fieldErrors.tooLong(field, err.valid ?? -1));
        break;
      case 'MaxItems':
      case 'TooManyProperties':
        out.push(tooMany(field, typeof err.value === 'number' ? err.value : -1, err.valid ?? -1));
        break;
      case 'InvalidType':
        out.push(fieldErrors.typeInvalid(field, value, err.message));
        break;
      default:
        out.push(fieldErrors.invalid(field, value, err.message));
    }
  }
  return out;
}

/** field.TooMany: the actual count is the bad value when known. */
function tooMany(field: string, actual: number, max: number): FieldError {
  return {
    type: 'FieldValueTooMany',
    field,
    badValue: actual >= 0 ? actual : OMIT_VALUE,
    detail: max >= 0 ? `must have at most ${max} items` : 'has too many items',
  };
}
