import { ConfigMap, Event, Namespace, Secret } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Widget } from './test-support/widget.ts';
import { swaggerDocument } from './v2-document.ts';
import { encodeSwaggerProtobuf, OpenAPIV2Document } from './v2-protobuf.ts';

type Json = Record<string, unknown>;

const served = [Namespace, ConfigMap, Secret, Event, Widget].map((def) => ({ def, version: 'v1' }));
const doc = swaggerDocument(served);

function walk(v: unknown, visit: (o: Json) => void): void {
  if (Array.isArray(v)) for (const x of v) walk(x, visit);
  else if (v && typeof v === 'object') {
    visit(v as Json);
    for (const x of Object.values(v)) walk(x, visit);
  }
}

/** The reverse of schemaToProto, for the round trip: what a gnostic reader sees. */
function schemaFromProto(s: Json): Json {
  const out: Json = {};
  const names: Record<string, string> = {
    format: 'format',
    title: 'title',
    description: 'description',
    multiple_of: 'multipleOf',
    maximum: 'maximum',
    exclusive_maximum: 'exclusiveMaximum',
    minimum: 'minimum',
    exclusive_minimum: 'exclusiveMinimum',
    max_length: 'maxLength',
    min_length: 'minLength',
    pattern: 'pattern',
    max_items: 'maxItems',
    min_items: 'minItems',
    unique_items: 'uniqueItems',
    max_properties: 'maxProperties',
    min_properties: 'minProperties',
    discriminator: 'discriminator',
    read_only: 'readOnly',
  };
  if (s._ref) out.$ref = s._ref;
  for (const [k, v] of Object.entries(names)) if (s[k] !== undefined) out[v] = s[k];
  if (s.default) out.default = parse((s.default as { yaml: string }).yaml);
  if (s.required) out.required = s.required;
  if (s.enum) out.enum = (s.enum as { yaml: string }[]).map((a) => parse(a.yaml));
  const ap = s.additional_properties as { schema?: Json; boolean?: boolean } | undefined;
  if (ap?.schema) out.additionalProperties = schemaFromProto(ap.schema);
  else if (ap && ap.boolean !== undefined) out.additionalProperties = ap.boolean;
  if (s.type) out.type = (s.type as { value: string[] }).value[0];
  if (s.items) out.items = schemaFromProto((s.items as { schema: Json[] }).schema[0] as Json);
  if (s.all_of) out.allOf = (s.all_of as Json[]).map(schemaFromProto);
  if (s.properties)
    out.properties = Object.fromEntries(
      (s.properties as { additional_properties: { name: string; value: Json }[] }).additional_properties.map((p) => [
        p.name,
        schemaFromProto(p.value),
      ]),
    );
  for (const e of (s.vendor_extension ?? []) as { name: string; value: { yaml: string } }[]) out[e.name] = parse(e.value.yaml);
  return out;
}

describe('swaggerDocument', () => {
  it('is one Swagger 2.0 document for every served group-version', () => {
    expect(doc.swagger).toBe('2.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/namespaces/{namespace}/configmaps',
        '/api/v1/namespaces/{name}/finalize',
        '/apis/example.kapi.dev/v1/namespaces/{namespace}/widgets/{name}/scale',
      ]),
    );
    expect(doc.definitions['dev.kapi.example.v1.Widget']?.['x-kubernetes-group-version-kind']).toEqual([
      { group: 'example.kapi.dev', version: 'v1', kind: 'Widget' },
    ]);
    expect(doc.definitions['io.k8s.api.core.v1.SecretList']).toBeDefined();
    expect(doc.securityDefinitions).toEqual({ BearerToken: expect.objectContaining({ type: 'apiKey', in: 'header' }) });
  });

  it('uses v2 references and parameters, and a body parameter for request bodies', () => {
    expect(doc.definitions['dev.kapi.example.v1.Widget']?.properties).toMatchObject({
      metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', description: expect.stringContaining('Standard') },
    });
    const patch = (doc.paths['/apis/example.kapi.dev/v1/namespaces/{namespace}/widgets/{name}'] as Record<string, Json>).patch as Json;
    expect(patch.consumes).toContain('application/merge-patch+json');
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'example.kapi.dev', version: 'v1', kind: 'Widget' });
    const params = patch.parameters as Json[];
    expect(params[0]).toEqual({
      name: 'body',
      in: 'body',
      required: true,
      schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' },
    });
    expect(params.find((p) => p.name === 'fieldValidation')).toMatchObject({ in: 'query', type: 'string', uniqueItems: true });
    expect((patch.responses as Json)['200']).toEqual({ description: 'OK', schema: { $ref: '#/definitions/dev.kapi.example.v1.Widget' } });
  });

  it('has no v3-only keywords, and every reference resolves', () => {
    walk(doc, (o) => {
      for (const k of ['nullable', 'anyOf', 'oneOf', 'not', 'requestBody', 'content']) expect(o[k], k).toBeUndefined();
      if (typeof o.$ref === 'string') {
        expect(o.$ref.startsWith('#/definitions/')).toBe(true);
        expect(doc.definitions[o.$ref.slice('#/definitions/'.length)], o.$ref).toBeDefined();
      }
    });
  });
});

describe('encodeSwaggerProtobuf', () => {
  const bytes = encodeSwaggerProtobuf(doc);
  const decoded = OpenAPIV2Document.toObject(OpenAPIV2Document.decode(bytes), { longs: Number }) as Json;

  /** proto3 drops zero scalars (minimum: 0, uniqueItems: false) on the wire, in Go's gnostic as here. */
  function withoutZeroScalars(v: unknown): unknown {
    if (Array.isArray(v)) return v.map(withoutZeroScalars);
    if (!v || typeof v !== 'object') return v;
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) {
      const isScalarKeyword = !['default', 'enum', 'example', 'properties'].includes(k) && !k.startsWith('x-');
      if (isScalarKeyword && (x === 0 || x === false || x === '')) continue;
      out[k] = k === 'default' || k === 'enum' || k === 'example' || k.startsWith('x-') ? x : withoutZeroScalars(x);
    }
    return out;
  }

  it('decodes as openapi.v2.Document with the same definitions', () => {
    expect(decoded.swagger).toBe('2.0');
    expect(decoded.info).toEqual({ title: 'Kubernetes', version: 'v0.1.0' });
    const defs = (decoded.definitions as { additional_properties: { name: string; value: Json }[] }).additional_properties;
    expect(defs.map((d) => d.name)).toEqual(Object.keys(doc.definitions));
    for (const d of defs) expect(schemaFromProto(d.value), d.name).toEqual(withoutZeroScalars(doc.definitions[d.name]));
  });

  it('carries paths, parameters, responses and vendor extensions as gnostic does', () => {
    const paths = (decoded.paths as { path: { name: string; value: Json }[] }).path;
    expect(paths.map((p) => p.name)).toEqual(Object.keys(doc.paths));
    const item = paths.find((p) => p.name === '/apis/example.kapi.dev/v1/namespaces/{namespace}/widgets/{name}')?.value as Json;
    const patch = item.patch as Json;
    expect(patch.operation_id).toBe('patchExampleKapiDevV1NamespacedWidget');
    const ext = Object.fromEntries(
      (patch.vendor_extension as { name: string; value: { yaml: string } }[]).map((e) => [e.name, parse(e.value.yaml)]),
    );
    expect(ext).toEqual({
      'x-kubernetes-action': 'patch',
      'x-kubernetes-group-version-kind': { group: 'example.kapi.dev', version: 'v1', kind: 'Widget' },
    });
    const params = patch.parameters as Json[];
    expect(params[0]).toEqual({
      parameter: {
        body_parameter: {
          name: 'body',
          in: 'body',
          required: true,
          schema: { _ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' },
        },
      },
    });
    expect(params).toContainEqual({
      parameter: {
        non_body_parameter: {
          query_parameter_sub_schema: expect.objectContaining({ name: 'fieldValidation', in: 'query', type: 'string', unique_items: true }),
        },
      },
    });
    expect(item.parameters).toContainEqual({
      parameter: {
        non_body_parameter: {
          path_parameter_sub_schema: expect.objectContaining({ name: 'name', in: 'path', required: true, type: 'string' }),
        },
      },
    });
    const responses = (patch.responses as { response_code: { name: string; value: Json }[] }).response_code;
    expect(responses.map((r) => r.name)).toEqual(['200', '201', '401']);
    expect(responses[0]?.value).toEqual({
      response: { description: 'OK', schema: { schema: { _ref: '#/definitions/dev.kapi.example.v1.Widget' } } },
    });
    expect(decoded.security_definitions).toEqual({
      additional_properties: [
        {
          name: 'BearerToken',
          value: { api_key_security: { type: 'apiKey', name: 'authorization', in: 'header', description: 'Bearer Token authentication' } },
        },
      ],
    });
  });
});
