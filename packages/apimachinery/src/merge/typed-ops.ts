/**
 * The typed operations the Updater stands on (src/typed), in one place: SMD's TypedValue methods Compare,
 * Merge, ToFieldSet, RemoveItems, and Set.EnsureNamedFieldsAreMembers, over plain JSON values typed by the schema
 * of one API version.
 */
import type { FieldSet } from '../fieldpath/set.ts';
import { ValidationErrors } from '../typed/helpers.ts';
import type { TypedSchema } from '../typed/schema.ts';
import { toFieldSet } from '../typed/to-field-set.ts';
import { validate } from '../typed/validate.ts';

/** A value's schema and root type in one API version. */
export type TypedVersion = TypedSchema;

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

const pending = (name: string) => (): never => {
  throw new Error(`typed.${name} is not there yet`);
};

export const typedOps = {
  toFieldSet: (value: unknown, type: TypedVersion): FieldSet => toFieldSet(type, value),
  compare: pending('compare') as (lhs: unknown, rhs: unknown, type: TypedVersion) => Comparison,
  merge: pending('merge') as (live: unknown, config: unknown, type: TypedVersion) => unknown,
  removeItems: pending('removeItems') as (value: unknown, set: FieldSet, type: TypedVersion) => unknown,
  ensureNamedFieldsAreMembers: pending('ensureNamedFieldsAreMembers') as (set: FieldSet, type: TypedVersion) => FieldSet,
  /** Throws ValidationErrors when `value` is not a valid value of `type`. */
  validate(value: unknown, type: TypedVersion, allowDuplicates: boolean): void {
    const errors = validate(type, value, { allowDuplicates });
    if (errors.length > 0) throw new ValidationErrors(errors);
  },
};
