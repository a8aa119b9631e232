import protobuf from 'protobufjs';
import { stringify } from 'yaml';

/**
 * Swagger 2.0 in gnostic's protobuf encoding (github.com/google/gnostic-models openapiv2/OpenAPIv2.proto, package
 * openapi.v2), which client-go asks for with `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf` and
 * kubectl decodes into its models. The messages below are the subset kapi writes, with the .proto's field numbers;
 * fields kapi never sets are left out (a decoder sees them as absent). google.protobuf.Any is declared locally with
 * the same wire shape. Values that are arbitrary JSON (default, enum, example, vendor extensions) travel as gnostic
 * `Any` with their YAML text, as gnostic's ParseDocument stores them.
 */
const OPENAPI_V2_PROTO = `
syntax = "proto3";
package openapi.v2;
message GoogleProtobufAny { string type_url = 1; bytes value = 2; }
message AdditionalPropertiesItem { oneof oneof { Schema schema = 1; bool boolean = 2; } }
message Any { GoogleProtobufAny value = 1; string yaml = 2; }
message ApiKeySecurity { string type = 1; string name = 2; string in = 3; string description = 4; repeated NamedAny vendor_extension = 5; }
message BodyParameter { string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5; repeated NamedAny vendor_extension = 6; }
message Definitions { repeated NamedSchema additional_properties = 1; }
message Document {
  string swagger = 1; Info info = 2; string host = 3; string base_path = 4; repeated string schemes = 5; repeated string consumes = 6;
  repeated string produces = 7; Paths paths = 8; Definitions definitions = 9; repeated SecurityRequirement security = 12;
  SecurityDefinitions security_definitions = 13; repeated NamedAny vendor_extension = 16;
}
message Info { string title = 1; string version = 2; string description = 3; repeated NamedAny vendor_extension = 7; }
message ItemsItem { repeated Schema schema = 1; }
message JsonReference { string _ref = 1; string description = 2; }
message NamedAny { string name = 1; Any value = 2; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message NamedSchema { string name = 1; Schema value = 2; }
message NamedSecurityDefinitionsItem { string name = 1; SecurityDefinitionsItem value = 2; }
message NamedStringArray { string name = 1; StringArray value = 2; }
message NonBodyParameter { oneof oneof { QueryParameterSubSchema query_parameter_sub_schema = 3; PathParameterSubSchema path_parameter_sub_schema = 4; } }
message Operation {
  repeated string tags = 1; string summary = 2; string description = 3; string operation_id = 5; repeated string produces = 6;
  repeated string consumes = 7; repeated ParametersItem parameters = 8; Responses responses = 9; repeated string schemes = 10;
  bool deprecated = 11; repeated NamedAny vendor_extension = 13;
}
message Parameter { oneof oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message ParametersItem { oneof oneof { Parameter parameter = 1; JsonReference json_reference = 2; } }
message PathItem {
  string _ref = 1; Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5; Operation options = 6;
  Operation head = 7; Operation patch = 8; repeated ParametersItem parameters = 9; repeated NamedAny vendor_extension = 10;
}
message PathParameterSubSchema {
  bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5; string format = 6;
  bool unique_items = 19; repeated NamedAny vendor_extension = 22;
}
message Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2; }
message Properties { repeated NamedSchema additional_properties = 1; }
message QueryParameterSubSchema {
  bool required = 1; string in = 2; string description = 3; string name = 4; bool allow_empty_value = 5; string type = 6;
  string format = 7; bool unique_items = 20; repeated NamedAny vendor_extension = 23;
}
message Response { string description = 1; SchemaItem schema = 2; repeated NamedAny vendor_extension = 5; }
message ResponseValue { oneof oneof { Response response = 1; JsonReference json_reference = 2; } }
message Responses { repeated NamedResponseValue response_code = 1; repeated NamedAny vendor_extension = 2; }
message Schema {
  string _ref = 1; string format = 2; string title = 3; string description = 4; Any default = 5; double multiple_of = 6;
  double maximum = 7; bool exclusive_maximum = 8; double minimum = 9; bool exclusive_minimum = 10; int64 max_length = 11;
  int64 min_length = 12; string pattern = 13; int64 max_items = 14; int64 min_items = 15; bool unique_items = 16;
  int64 max_properties = 17; int64 min_properties = 18; repeated string required = 19; repeated Any enum = 20;
  AdditionalPropertiesItem additional_properties = 21; TypeItem type = 22; ItemsItem items = 23; repeated Schema all_of = 24;
  Properties properties = 25; string discriminator = 26; bool read_only = 27; Any example = 30; repeated NamedAny vendor_extension = 31;
}
message SchemaItem { oneof oneof { Schema schema = 1; } }
message SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1; }
message SecurityDefinitionsItem { oneof oneof { ApiKeySecurity api_key_security = 2; } }
message SecurityRequirement { repeated NamedStringArray additional_properties = 1; }
message StringArray { repeated string value = 1; }
message TypeItem { repeated string value = 1; }
`;

const root = protobuf.parse(OPENAPI_V2_PROTO, { keepCase: true }).root;

/** openapi.v2.Document, for decoding in tests and tools. */
export const OpenAPIV2Document: protobuf.Type = root.lookupType('openapi.v2.Document');

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

function any(value: unknown): Json {
  return { yaml: stringify(value) };
}

function vendorExtensions(o: Json): Json[] {
  return Object.entries(o)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, value]) => ({ name, value: any(value) }));
}

function withExtensions(out: Json, src: Json, field = 'vendor_extension'): Json {
  const ext = vendorExtensions(src);
  if (ext.length > 0) out[field] = ext;
  return out;
}

const SCHEMA_SCALARS: Record<string, string> = {
  format: 'format',
  title: 'title',
  description: 'description',
  multipleOf: 'multiple_of',
  maximum: 'maximum',
  exclusiveMaximum: 'exclusive_maximum',
  minimum: 'minimum',
  exclusiveMinimum: 'exclusive_minimum',
  maxLength: 'max_length',
  minLength: 'min_length',
  pattern: 'pattern',
  maxItems: 'max_items',
  minItems: 'min_items',
  uniqueItems: 'unique_items',
  maxProperties: 'max_properties',
  minProperties: 'min_properties',
  discriminator: 'discriminator',
  readOnly: 'read_only',
};

/** A Swagger 2.0 schema as an openapi.v2.Schema object. */
export function schemaToProto(s: Json): Json {
  const out: Json = {};
  if (typeof s.$ref === 'string') out._ref = s.$ref;
  for (const [k, field] of Object.entries(SCHEMA_SCALARS)) if (s[k] !== undefined) out[field] = s[k];
  if (s.default !== undefined) out.default = any(s.default);
  if (s.example !== undefined) out.example = any(s.example);
  if (Array.isArray(s.required)) out.required = [...s.required];
  if (Array.isArray(s.enum)) out.enum = s.enum.map(any);
  const ap = s.additionalProperties;
  if (typeof ap === 'boolean') out.additional_properties = { boolean: ap };
  else if (isObject(ap)) out.additional_properties = { schema: schemaToProto(ap) };
  if (s.type !== undefined) out.type = { value: Array.isArray(s.type) ? [...s.type] : [s.type] };
  if (Array.isArray(s.items)) out.items = { schema: s.items.map((x) => schemaToProto(x as Json)) };
  else if (isObject(s.items)) out.items = { schema: [schemaToProto(s.items)] };
  if (Array.isArray(s.allOf)) out.all_of = s.allOf.map((x) => schemaToProto(x as Json));
  if (isObject(s.properties))
    out.properties = {
      additional_properties: Object.entries(s.properties).map(([name, v]) => ({ name, value: schemaToProto(v as Json) })),
    };
  return withExtensions(out, s);
}

function parameterToProto(p: Json): Json {
  if (typeof p.$ref === 'string') return { json_reference: { _ref: p.$ref } };
  if (p.in === 'body') {
    const body: Json = { name: p.name, in: 'body' };
    if (p.description !== undefined) body.description = p.description;
    if (p.required) body.required = true;
    if (isObject(p.schema)) body.schema = schemaToProto(p.schema);
    return { parameter: { body_parameter: withExtensions(body, p) } };
  }
  const sub: Json = {};
  for (const k of ['required', 'in', 'description', 'name', 'type', 'format'] as const) if (p[k] !== undefined) sub[k] = p[k];
  if (p.uniqueItems !== undefined) sub.unique_items = p.uniqueItems;
  withExtensions(sub, p);
  if (p.in === 'path') return { parameter: { non_body_parameter: { path_parameter_sub_schema: sub } } };
  if (p.in === 'query') return { parameter: { non_body_parameter: { query_parameter_sub_schema: sub } } };
  throw new Error(`openapi v2 protobuf: unsupported parameter location ${JSON.stringify(p.in)}`);
}

function operationToProto(o: Json): Json {
  const out: Json = {};
  if (Array.isArray(o.tags)) out.tags = [...o.tags];
  for (const k of ['summary', 'description'] as const) if (o[k] !== undefined) out[k] = o[k];
  if (o.operationId !== undefined) out.operation_id = o.operationId;
  for (const k of ['produces', 'consumes', 'schemes'] as const) if (Array.isArray(o[k])) out[k] = [...(o[k] as string[])];
  if (Array.isArray(o.parameters)) out.parameters = o.parameters.map((p) => parameterToProto(p as Json));
  if (isObject(o.responses)) {
    out.responses = {
      response_code: Object.entries(o.responses).map(([name, r]) => {
        const resp = r as Json;
        const value: Json = {};
        if (resp.description !== undefined) value.description = resp.description;
        if (isObject(resp.schema)) value.schema = { schema: schemaToProto(resp.schema) };
        return { name, value: { response: withExtensions(value, resp) } };
      }),
    };
  }
  if (o.deprecated) out.deprecated = true;
  return withExtensions(out, o);
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

/** A Swagger 2.0 document (JSON) as an openapi.v2.Document object. */
export function swaggerToProtoObject(doc: Json): Json {
  const out: Json = {};
  if (doc.swagger !== undefined) out.swagger = doc.swagger;
  if (isObject(doc.info)) {
    const info: Json = {};
    for (const k of ['title', 'version', 'description'] as const) if (doc.info[k] !== undefined) info[k] = doc.info[k];
    out.info = withExtensions(info, doc.info);
  }
  if (doc.host !== undefined) out.host = doc.host;
  if (doc.basePath !== undefined) out.base_path = doc.basePath;
  for (const k of ['schemes', 'consumes', 'produces'] as const) if (Array.isArray(doc[k])) out[k] = [...(doc[k] as string[])];
  if (isObject(doc.paths)) {
    out.paths = {
      path: Object.entries(doc.paths).map(([name, item]) => {
        const src = item as Json;
        const value: Json = {};
        for (const m of METHODS) if (isObject(src[m])) value[m] = operationToProto(src[m]);
        if (Array.isArray(src.parameters)) value.parameters = src.parameters.map((p) => parameterToProto(p as Json));
        return { name, value: withExtensions(value, src) };
      }),
    };
  }
  if (isObject(doc.definitions))
    out.definitions = {
      additional_properties: Object.entries(doc.definitions).map(([name, s]) => ({ name, value: schemaToProto(s as Json) })),
    };
  if (Array.isArray(doc.security))
    out.security = doc.security.map((req) => ({
      additional_properties: Object.entries(req as Json).map(([name, scopes]) => ({ name, value: { value: [...(scopes as string[])] } })),
    }));
  if (isObject(doc.securityDefinitions)) {
    out.security_definitions = {
      additional_properties: Object.entries(doc.securityDefinitions).map(([name, d]) => {
        const def = d as Json;
        if (def.type !== 'apiKey') throw new Error(`openapi v2 protobuf: unsupported security definition type ${JSON.stringify(def.type)}`);
        const key: Json = {};
        for (const k of ['type', 'name', 'in', 'description'] as const) if (def[k] !== undefined) key[k] = def[k];
        return { name, value: { api_key_security: withExtensions(key, def) } };
      }),
    };
  }
  return withExtensions(out, doc);
}

/** The protobuf bytes of a Swagger 2.0 document. */
export function encodeSwaggerProtobuf(doc: object): Uint8Array {
  const message = OpenAPIV2Document.fromObject(swaggerToProtoObject(doc as Json));
  return OpenAPIV2Document.encode(message).finish();
}
