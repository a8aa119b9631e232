import { ConfigMap, type ResourceDefinition } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { kindCelTypes } from './kind-cel-types.ts';

describe('kindCelTypes', () => {
  const types = kindCelTypes(() => [ConfigMap as unknown as ResourceDefinition]);

  it('maps a served group/version/resource to its kinds, and nothing else', () => {
    expect(types.kindsFor({ group: '', version: 'v1', resource: 'configmaps' })).toEqual([{ group: '', version: 'v1', kind: 'ConfigMap' }]);
    expect(types.kindsFor({ group: '', version: 'v2', resource: 'configmaps' })).toEqual([]);
    expect(types.kindsFor({ group: '', version: 'v1', resource: 'secrets' })).toEqual([]);
  });

  it("gives a kind's CEL type from its OpenAPI schema: declared fields typed, the root showing apiVersion, kind and metadata", () => {
    const t = types.typeOf({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(t).toMatchObject({ kind: 'object' });
    const fields = (t as { fields: Record<string, unknown> }).fields;
    expect(fields.data).toEqual({ kind: 'map', value: 'string' });
    expect(fields).toHaveProperty('apiVersion', 'string');
    expect(fields).toHaveProperty('metadata');
    expect(types.typeOf({ group: '', version: 'v1', kind: 'ConfigMap' })).toBe(t);
    expect(types.typeOf({ group: '', version: 'v1', kind: 'Secret' })).toBeUndefined();
  });
});
