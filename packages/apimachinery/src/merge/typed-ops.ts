/**
 * The typed operations the Updater stands on (src/typed), in the argument order the Updater reads best: SMD's
 * TypedValue methods Compare, Merge, ToFieldSet, RemoveItems, Validate and Set.EnsureNamedFieldsAreMembers, over
 * plain JSON values typed by the schema of one API version.
 */
import type { FieldSet } from '../fieldpath/set.ts';
import { type Comparison, compare } from '../typed/compare.ts';
import { ensureNamedFieldsAreMembers } from '../typed/ensure-named-fields.ts';
import { ValidationErrors } from '../typed/helpers.ts';
import { merge } from '../typed/merge.ts';
import { removeItems } from '../typed/remove.ts';
import type { TypedSchema } from '../typed/schema.ts';
import { toFieldSet } from '../typed/to-field-set.ts';
import { validate } from '../typed/validate.ts';

/** A value's schema and root type in one API version. */
export type TypedVersion = TypedSchema;

export type { Comparison };

export const typedOps = {
  toFieldSet: (value: unknown, type: TypedVersion): FieldSet => toFieldSet(type, value),
  compare: (lhs: unknown, rhs: unknown, type: TypedVersion): Comparison => compare(type, lhs, rhs),
  merge: (live: unknown, config: unknown, type: TypedVersion): unknown => merge(type, live, config),
  removeItems: (value: unknown, set: FieldSet, type: TypedVersion): unknown => removeItems(type, value, set),
  ensureNamedFieldsAreMembers: (set: FieldSet, type: TypedVersion): FieldSet => ensureNamedFieldsAreMembers(type, set),
  /** Throws ValidationErrors when `value` is not a valid value of `type`. */
  validate(value: unknown, type: TypedVersion, allowDuplicates: boolean): void {
    const errors = validate(type, value, { allowDuplicates });
    if (errors.length > 0) throw new ValidationErrors(errors);
  },
};
