import { type FieldError, fieldErrors } from '@kapi/apimachinery';
import { defineResource, type ResourceObject } from '@kapi/registry';
import { z } from 'zod';

/** sample-apiserver's API group. */
export const WARDLE_GROUP = 'wardle.example.com';
export const WARDLE_VERSION = 'v1alpha1';

const flunderSchema = z.object({
  spec: z
    .object({
      reference: z.string().optional().describe('A name of another flunder or fischer, depending on the reference type.'),
      referenceType: z.enum(['Flunder', 'Fischer']).optional().describe('The type of the reference: Flunder or Fischer.'),
    })
    .optional(),
  status: z.object({}).optional(),
});

export type Flunder = ResourceObject<typeof flunderSchema>;

/**
 * sample-apiserver's ValidateFlunderSpec in v1alpha1's terms (one `reference` whose kind `referenceType` names): a
 * reference type needs a reference. A reference without a type is dropped by sample-apiserver's conversion, so it is
 * accepted here too.
 */
function validateFlunder(f: Flunder): FieldError[] {
  const type = f.spec?.referenceType;
  if (type && !f.spec?.reference) return [fieldErrors.invalid('spec.reference', '', `cannot be empty if referenceType is ${type}`)];
  return [];
}

/** wardle.example.com/v1alpha1 Flunder: namespaced, with a reference to another Flunder or a Fischer. */
export const Flunder = defineResource({
  group: WARDLE_GROUP,
  kind: 'Flunder',
  plural: 'flunders',
  singular: 'flunder',
  namespaced: true,
  versions: [{ name: WARDLE_VERSION, storage: true, schema: flunderSchema }],
  strategy: {
    validate: (_ctx, f) => validateFlunder(f),
    validateUpdate: (_ctx, f) => validateFlunder(f),
  },
});

const fischerSchema = z.object({
  disallowedFlunders: z.array(z.string()).optional().describe('Names of flunders that may not be created.'),
});

export type Fischer = ResourceObject<typeof fischerSchema>;

/** wardle.example.com/v1alpha1 Fischer: cluster-scoped, a list of flunder names sample-apiserver's BanFlunder refuses. */
export const Fischer = defineResource({
  group: WARDLE_GROUP,
  kind: 'Fischer',
  plural: 'fischers',
  singular: 'fischer',
  namespaced: false,
  versions: [{ name: WARDLE_VERSION, storage: true, schema: fischerSchema }],
});
