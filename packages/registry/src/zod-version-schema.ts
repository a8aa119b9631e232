import type { FieldError } from '@kapi/apimachinery';
import { decodeNullsAsGo } from './go-nulls.ts';
import { validateListSetsAndMaps } from './list-type.ts';
import { omitEmptyFields } from './omit-empty-fields.ts';
import { type JSONSchema, zodToOpenAPISchema } from './openapi.ts';
import type { ObjectSchema } from './resource-definition.ts';
import { safeParseData } from './schema-parse.ts';
import type { PatchMeta } from './strategic-merge/patch-meta.ts';
import { patchMetaForSchema } from './strategic-merge/schema-patch-meta.ts';
import { findUnknownZodFields } from './unknown-fields.ts';
import { validateZodBody } from './validate-object.ts';
import type { VersionSchema, VersionValidateOptions } from './version-schema.ts';

/** A defineResource version's zod schema as a VersionSchema; the OpenAPI schema and patch metadata are computed once, on first use. */
export function zodVersionSchema(schema: ObjectSchema): VersionSchema {
  let openAPI: JSONSchema | undefined;
  let patchMeta: PatchMeta | undefined;
  // What the schema's outputs (fresh objects zod built) lose to Go's omitempty.
  const omit = omitEmptyFields(schema);
  return Object.freeze({
    // object and old are for rules on the whole object (CRDs' CEL); a zod schema has none
    validate: (body: Record<string, unknown>, opts: VersionValidateOptions) => {
      const result = validateZodBody(schema, body, opts);
      if (omit && result.value) omit(result.value);
      return result;
    },
    listSetAndMapErrors: (body: Record<string, unknown>): FieldError[] => validateListSetsAndMaps(schema, body),
    decode: (body: Record<string, unknown>) => {
      const parsed = safeParseData(schema, body);
      if (!parsed.success) return undefined;
      const data = parsed.data as Record<string, unknown>;
      omit?.(data);
      return data;
    },
    // A value of another type is a decoding error in Go; null never is (it leaves the field at its zero value), and
    // what the value says (bounds, formats, required fields) is validation's.
    decodeErrors: (body: Record<string, unknown>): FieldError[] =>
      validateZodBody(schema, body, { listSetsAndMaps: false }).errors.filter(
        (e) => e.type === 'FieldValueTypeInvalid' && e.badValue !== 'null',
      ),
    decodeNulls: (body: Record<string, unknown>) => decodeNullsAsGo(schema, body),
    unknownFields: (body: Record<string, unknown>) => findUnknownZodFields(schema, body),
    openAPI: () => {
      openAPI ??= zodToOpenAPISchema(schema);
      return openAPI;
    },
    patchMeta: () => {
      patchMeta ??= patchMetaForSchema(schema);
      return patchMeta;
    },
  });
}
