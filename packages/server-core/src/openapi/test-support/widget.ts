import { defineResource, labelSelectorSchema } from '@kapi/registry';
import { z } from 'zod';

/** The test kind of the OpenAPI tests: namespaced, with status and scale subresources and field descriptions. */
export const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  shortNames: ['wd'],
  namespaced: true,
  versions: [
    {
      name: 'v1',
      schema: z
        .object({
          spec: z
            .object({
              replicas: z.int32().min(0).default(1).describe('How many widgets to run.'),
              selector: labelSelectorSchema.optional().describe('Which pods belong to the widget.'),
            })
            .describe('What the widget should look like.'),
          status: z
            .object({ replicas: z.int32().optional().describe('How many widgets run.'), selector: z.string().optional() })
            .optional()
            .describe('What the widget looks like.'),
        })
        .describe('A Widget is a thing kapi serves in its tests.'),
    },
  ],
  subresources: {
    status: true,
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
  },
});
