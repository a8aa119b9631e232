import { AGE_COLUMN, defineResource, type ResourceObject } from '@kapi/registry';
import { z } from 'zod';

const servicePortSchema = z.object({
  name: z.string().optional().describe('The name of this port within the service (required when there are several).'),
  protocol: z.enum(['TCP', 'UDP', 'SCTP']).default('TCP').describe('The IP protocol of this port.'),
  port: z.int().min(1).max(65535).describe('The port exposed by this service.'),
  targetPort: z.union([z.int(), z.string()]).optional().describe('The port (number or name) on the endpoints.'),
  nodePort: z.int().optional().describe('The port on each node (NodePort and LoadBalancer).'),
});

const serviceSchema = z.object({
  spec: z
    .object({
      type: z.enum(['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName']).default('ClusterIP').describe('How the service is exposed.'),
      ports: z.array(servicePortSchema).optional().describe('The ports exposed by this service.'),
      selector: z.record(z.string(), z.string()).optional().describe('The pods traffic is routed to (no controller acts on it here).'),
      clusterIP: z.string().optional().describe('The service IP (none is allocated here).'),
      externalName: z.string().optional().describe('The DNS name an ExternalName service aliases.'),
    })
    .default({ type: 'ClusterIP' }),
  status: z.object({ loadBalancer: z.object({}).passthrough().optional() }).optional(),
});

export type Service = ResourceObject<typeof serviceSchema>;

const none = (s: string): string => (s === '' ? '<none>' : s);

/**
 * core/v1 Service, minimal: what endpointsServiceResolver reads (type and ports) and kube's columns, so an APIService
 * or a webhook can name a Service whose Endpoints say where it is. No cluster IP or node port is allocated, and no
 * controller fills Endpoints from the selector: whoever runs the backend writes its Endpoints.
 */
export const Service = defineResource({
  group: '',
  kind: 'Service',
  plural: 'services',
  singular: 'service',
  shortNames: ['svc'],
  // kube lists Services in `kubectl get all`.
  categories: ['all'],
  namespaced: true,
  versions: [{ name: 'v1', schema: serviceSchema }],
  subresources: { status: true },
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.type', value: (o) => (o as Service).spec?.type ?? 'ClusterIP' },
    { name: 'Cluster-IP', type: 'string', jsonPath: '.spec.clusterIP', value: (o) => none((o as Service).spec?.clusterIP ?? '') },
    {
      name: 'External-IP',
      type: 'string',
      jsonPath: '.spec.externalName',
      value: (o) => none((o as Service).spec?.externalName ?? ''),
    },
    {
      name: 'Port(s)',
      type: 'string',
      jsonPath: '.spec.ports',
      // kube's makePortString: port[:nodePort]/protocol, comma-separated.
      value: (o) =>
        none(
          ((o as Service).spec?.ports ?? []).map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(','),
        ),
    },
    AGE_COLUMN,
    {
      name: 'Selector',
      type: 'string',
      jsonPath: '.spec.selector',
      priority: 1,
      value: (o) =>
        none(
          Object.entries((o as Service).spec?.selector ?? {})
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([k, v]) => `${k}=${v}`)
            .join(','),
        ),
    },
  ],
});
