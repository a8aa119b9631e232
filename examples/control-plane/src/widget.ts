import { AGE_COLUMN, defineResource, labelSelectorSchema } from '@kapi/registry';
import { z } from 'zod';

/** The example kind: a namespaced Widget with replicas, a selector, status and scale subresources, and printer columns. */
export const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  singular: 'widget',
  shortNames: ['wd'],
  categories: ['all'],
  namespaced: true,
  versions: [
    {
      name: 'v1',
      storage: true,
      schema: z.object({
        spec: z
          .object({
            replicas: z.int().min(0).default(1).describe('How many copies of the widget should exist.'),
            selector: labelSelectorSchema.optional().describe('Which objects count as copies.'),
            color: z.string().optional().describe('The colour of the widget.'),
          })
          .describe('What the widget should look like.'),
        status: z
          .object({
            replicas: z.int().optional().describe('How many copies exist.'),
            selector: z.string().optional().describe('The selector of the copies, serialized (for the scale subresource).'),
          })
          .optional()
          .describe('What the widget looks like now.'),
      }),
    },
  ],
  subresources: {
    status: true,
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
  },
  printerColumns: [
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Ready', type: 'integer', jsonPath: '.status.replicas' },
    // Declared columns replace the default Age column (as for a CRD), so it is declared too.
    AGE_COLUMN,
    { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
  ],
});
