export type {
  ExternalDocumentation,
  FieldValueErrorReason,
  JSON,
  JSONSchemaProps,
  ValidationRule,
} from './schema/json-schema-props.ts';
