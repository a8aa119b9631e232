import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { toInternalSpec } from './internal-spec.ts';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from './types.ts';
import { validateCustomResourceDefinition } from './validation.ts';

/**
 * kube's v1 → internal conversion moves per-version fields that every version shares to the spec; selectableFields
 * only together with the schema (they are checked against it), so versions with different schemas keep theirs.
 */

const schema = (extra: Record<string, JSONSchemaProps> = {}): JSONSchemaProps => ({
  type: 'object',
  properties: { spec: { type: 'object', properties: { color: { type: 'string' }, ...extra } } },
});

function crd(versions: CustomResourceDefinitionVersion[]): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: { group: 'example.com', names: { plural: 'widgets', kind: 'Widget' }, scope: 'Namespaced', versions },
  };
}

const color = [{ jsonPath: '.spec.color' }];
// The CRD is not defaulted (names, storedVersions): only the selectable fields' errors are looked at.
const selectableErrors = (c: CustomResourceDefinition) =>
  validateCustomResourceDefinition(c).filter((e) => e.field.includes('selectableFields'));

describe('toInternalSpec: selectableFields', () => {
  it('stay per version when the schemas differ, even when every version lists the same', () => {
    const c = crd([
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema() }, selectableFields: color },
      {
        name: 'v2',
        served: true,
        storage: false,
        schema: { openAPIV3Schema: schema({ size: { type: 'integer' } }) },
        selectableFields: color,
      },
    ]);
    const spec = toInternalSpec(c.spec);
    expect(spec.selectableFields).toBeUndefined();
    expect(spec.versions.map((v) => v.selectableFields)).toEqual([color, color]);
    expect(selectableErrors(c)).toEqual([]);
  });

  it('move to the spec with an identical schema', () => {
    const c = crd([
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema() }, selectableFields: color },
      { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: schema() }, selectableFields: color },
    ]);
    const spec = toInternalSpec(c.spec);
    expect(spec.selectableFields).toEqual(color);
    expect(spec.versions.map((v) => v.selectableFields)).toEqual([undefined, undefined]);
    expect(selectableErrors(c)).toEqual([]);
  });
});
