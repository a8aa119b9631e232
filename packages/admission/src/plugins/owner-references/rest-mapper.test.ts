import { defineResource } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { restMapperFor } from './rest-mapper.ts';

const Gadget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
  versions: [
    { name: 'v1', storage: true, schema: z.object({}) },
    { name: 'v1beta1', served: false, schema: z.object({}) },
  ],
});

describe('restMapperFor', () => {
  const mapper = restMapperFor(() => [Gadget]);

  it('maps a kind to its resource in a served version', () => {
    expect(mapper({ group: 'example.kapi.dev', kind: 'Gadget' }, 'v1')).toEqual([
      { group: 'example.kapi.dev', version: 'v1', resource: 'gadgets', namespaced: true },
    ]);
  });

  it("fails with kube's NoKindMatchError text for an unknown kind or a version not served", () => {
    expect(() => mapper({ group: 'example.kapi.dev', kind: 'Gadget' }, 'v1beta1')).toThrow(
      'no matches for kind "Gadget" in version "example.kapi.dev/v1beta1"',
    );
    expect(() => mapper({ group: '', kind: 'Pod' }, 'v1')).toThrow('no matches for kind "Pod" in version "v1"');
  });
});
