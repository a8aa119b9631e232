import { AGE_COLUMN, defineResource, type ResourceObject } from '@kapi/registry';
import { z } from 'zod';

const addressSchema = z.object({
  ip: z.string().describe('The IP of this endpoint.'),
  hostname: z.string().optional(),
  nodeName: z.string().optional(),
  targetRef: z.object({}).passthrough().optional(),
});

const endpointsSchema = z.object({
  subsets: z
    .array(
      z.object({
        addresses: z.array(addressSchema).optional().describe('Addresses ready to serve the ports.'),
        notReadyAddresses: z.array(addressSchema).optional().describe('Addresses not ready yet.'),
        ports: z
          .array(
            z.object({
              name: z.string().optional().describe("The name of the Service's port this is."),
              port: z.int().min(1).max(65535),
              protocol: z.enum(['TCP', 'UDP', 'SCTP']).default('TCP'),
            }),
          )
          .optional(),
      }),
    )
    .optional()
    .describe('The sets of addresses and ports that make up the service.'),
});

export type Endpoints = ResourceObject<typeof endpointsSchema>;

/** kube's formatEndpoints: ip:port of ready addresses, the first three, then " + N more...". */
function formatEndpoints(eps: Endpoints): string {
  const all: string[] = [];
  for (const ss of eps.subsets ?? []) {
    const ports = ss.ports?.length ? ss.ports.map((p) => `:${p.port}`) : [''];
    for (const p of ports) for (const a of ss.addresses ?? []) all.push(`${a.ip}${p}`);
  }
  if (all.length === 0) return '<none>';
  return all.length > 3 ? `${all.slice(0, 3).join(',')} + ${all.length - 3} more...` : all.join(',');
}

/** core/v1 Endpoints: where a Service's backends are (what endpointsServiceResolver dials), with kube's column. */
export const Endpoints = defineResource({
  group: '',
  kind: 'Endpoints',
  plural: 'endpoints',
  singular: 'endpoints',
  shortNames: ['ep'],
  namespaced: true,
  versions: [{ name: 'v1', schema: endpointsSchema }],
  printerColumns: [{ name: 'Endpoints', type: 'string', jsonPath: '.subsets', value: (o) => formatEndpoints(o as Endpoints) }, AGE_COLUMN],
});
