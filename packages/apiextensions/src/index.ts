export { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './schema/defaulting.ts';
export type {
  ExternalDocumentation,
  FieldValueErrorReason,
  JSON,
  JSONSchemaProps,
  ValidationRule,
} from './schema/json-schema-props.ts';
export { newStructural } from './schema/new-structural.ts';
export { type PruneOptions, prune, unknownFieldMessage } from './schema/pruning.ts';
export type {
  Extensions,
  Generic,
  NestedValueValidation,
  Structural,
  StructuralOrBool,
  ValueValidation,
} from './schema/structural.ts';
export { type ValidateDefaultsOptions, type ValueValidator, validateDefaults } from './schema/validate-defaults.ts';
export { validateSchemaRules } from './schema/validate-schema-rules.ts';
export { validateStructural } from './schema/validate-structural.ts';
