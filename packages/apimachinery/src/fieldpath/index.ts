export { fieldSetFromFieldsV1, fieldSetFromFieldsV1Json, fieldSetToFieldsV1, fieldSetToFieldsV1Json } from './fields-v1.ts';
export {
  type Conflict,
  ConflictsError,
  conflictString,
  conflictsFromManagers,
  conflictsString,
  type ManagedFields,
  managedFieldsDifference,
  managedFieldsEqual,
  type VersionedSet,
} from './managed-fields.ts';
export { comparePaths, makePath, type Path, pathString, pathsEqual } from './path.ts';
export {
  comparePathElements,
  compareValues,
  fieldElement,
  indexElement,
  keyElement,
  type PathElement,
  parsePathElement,
  pathElementString,
  pathElementsEqual,
  serializePathElement,
  UnknownPathElementTypeError,
  valueElement,
  valueString,
} from './path-element.ts';
export { FieldSet, FieldSetBuilder } from './set.ts';
export {
  excludeSetFilter,
  type FieldSetFilter,
  includeMatcherFilter,
  MATCH_ANY_ELEMENT,
  type PathElementMatcher,
  SetMatcher,
} from './set-matcher.ts';
