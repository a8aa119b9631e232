import type { IncludeObjectPolicy } from './table-types.ts';

/**
 * The `includeObject` query parameter of a Table request, checked as kube-apiserver's ValidateTableOptions does;
 * an invalid value is a 400 BadRequest with `message` as its message.
 */
export function parseIncludeObject(value: string | undefined): { policy: IncludeObjectPolicy } | { message: string } {
  if (value === undefined || value === '' || value === 'Metadata') return { policy: 'Metadata' };
  if (value === 'None' || value === 'Object') return { policy: value };
  return {
    message: `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: must be 'Metadata', 'Object', 'None', or empty`,
  };
}
