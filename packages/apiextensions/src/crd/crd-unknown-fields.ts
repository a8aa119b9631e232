/**
 * The fields of a CustomResourceDefinition body that apiextensions.k8s.io/v1 does not declare, as kube's strict decoding
 * (fieldValidation=Strict, kubectl's default) names them: `spec.bogus`, `spec.versions[0].schema.openAPIV3Schema.properties[spec].examples`
 * (list items by index, map entries by key in brackets). The CRD kind's schema keeps unknown fields (its validation reads
 * them in kube's words), so they are found here, on the Go types' shapes.
 */

/** How a field's value is walked: an object of known fields, a list or map of one, or anything (a JSON value). */
type Shape =
  | { readonly fields: Readonly<Record<string, Shape>> }
  | { readonly list: Shape }
  | { readonly map: Shape }
  | 'any'
  | 'unknown'
  | (() => Shape);

const ANY = 'any' as const;
const obj = (fields: Record<string, Shape>): Shape => ({ fields });
const list = (of: Shape): Shape => ({ list: of });
const map = (of: Shape): Shape => ({ map: of });

/** JSONSchemaProps (types_jsonschema.go): recursive; `items`, `additionalProperties`, `additionalItems` and `dependencies` take more than one form. */
const schemaProps: Shape = (() => {
  const self: Shape = () => props;
  const props: Shape = obj({
    id: ANY,
    $schema: ANY,
    $ref: ANY,
    description: ANY,
    type: ANY,
    format: ANY,
    title: ANY,
    default: ANY,
    maximum: ANY,
    exclusiveMaximum: ANY,
    minimum: ANY,
    exclusiveMinimum: ANY,
    maxLength: ANY,
    minLength: ANY,
    pattern: ANY,
    maxItems: ANY,
    minItems: ANY,
    uniqueItems: ANY,
    multipleOf: ANY,
    enum: ANY,
    maxProperties: ANY,
    minProperties: ANY,
    required: ANY,
    items: self,
    allOf: list(self),
    oneOf: list(self),
    anyOf: list(self),
    not: self,
    properties: map(self),
    additionalProperties: self,
    patternProperties: map(self),
    dependencies: map(self),
    additionalItems: self,
    definitions: map(self),
    externalDocs: obj({ description: ANY, url: ANY }),
    example: ANY,
    nullable: ANY,
    'x-kubernetes-preserve-unknown-fields': ANY,
    'x-kubernetes-embedded-resource': ANY,
    'x-kubernetes-int-or-string': ANY,
    'x-kubernetes-list-map-keys': ANY,
    'x-kubernetes-list-type': ANY,
    'x-kubernetes-map-type': ANY,
    'x-kubernetes-validations': list(
      obj({ rule: ANY, message: ANY, messageExpression: ANY, reason: ANY, fieldPath: ANY, optionalOldSelf: ANY }),
    ),
  });
  return props;
})();

const names = obj({ plural: ANY, singular: ANY, shortNames: ANY, kind: ANY, listKind: ANY, categories: ANY });

const crd = obj({
  spec: obj({
    group: ANY,
    names,
    scope: ANY,
    versions: list(
      obj({
        name: ANY,
        served: ANY,
        storage: ANY,
        deprecated: ANY,
        deprecationWarning: ANY,
        schema: obj({ openAPIV3Schema: schemaProps }),
        subresources: obj({
          status: obj({}),
          scale: obj({ specReplicasPath: ANY, statusReplicasPath: ANY, labelSelectorPath: ANY }),
        }),
        additionalPrinterColumns: list(obj({ name: ANY, type: ANY, format: ANY, description: ANY, priority: ANY, jsonPath: ANY })),
        selectableFields: list(obj({ jsonPath: ANY })),
      }),
    ),
    conversion: obj({
      strategy: ANY,
      webhook: obj({
        conversionReviewVersions: ANY,
        clientConfig: obj({ url: ANY, caBundle: ANY, service: obj({ namespace: ANY, name: ANY, path: ANY, port: ANY }) }),
      }),
    }),
    preserveUnknownFields: ANY,
  }),
  status: obj({
    conditions: list(obj({ type: ANY, status: ANY, lastTransitionTime: ANY, reason: ANY, message: ANY, observedGeneration: ANY })),
    acceptedNames: names,
    storedVersions: ANY,
  }),
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The undeclared fields of `body` (a CRD without apiVersion, kind and metadata), in document order. */
export function crdUnknownFields(body: Record<string, unknown>): string[] {
  const out: string[] = [];
  // An explicit stack: schemas may nest as deep as the decoder allows.
  const stack: [unknown, Shape, string][] = [[body, crd, '']];
  while (stack.length) {
    const [value, s, path] = stack.pop() as [unknown, Shape, string];
    let shape = s;
    while (typeof shape === 'function') shape = shape();
    if (shape === ANY) continue;
    if (shape === 'unknown') {
      out.push(path);
      continue;
    }
    const next: [unknown, Shape, string][] = [];
    if ('fields' in shape) {
      if (!isObject(value)) continue;
      for (const [k, v] of Object.entries(value)) {
        const p = path ? `${path}.${k}` : k;
        next.push([v, (Object.hasOwn(shape.fields, k) ? shape.fields[k] : undefined) ?? 'unknown', p]);
      }
    } else if ('list' in shape) {
      // `items` and the like also take a single schema, or a bool: a non-list is walked as the element itself.
      if (!Array.isArray(value)) next.push([value, shape.list, path]);
      else for (const [i, v] of value.entries()) next.push([v, shape.list, `${path}[${i}]`]);
    } else if (isObject(value)) {
      for (const [k, v] of Object.entries(value)) next.push([v, shape.map, `${path}[${k}]`]);
    }
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i] as [unknown, Shape, string]);
  }
  return out;
}
