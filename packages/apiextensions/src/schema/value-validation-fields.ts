/**
 * The single-valued restrictions from maximum to multipleOf, in Go's declaration order, which JSONSchemaProps and
 * ValueValidation share: the conversions copy them field by field, and CRD validation lists fields in that order.
 */
export const SCALAR_VALUE_FIELDS = [
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
] as const;
