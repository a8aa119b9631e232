import type { KubernetesObject } from '@kubernetes/client-node';
import type { Part } from './example-kinds.ts';

export { GROUP, keyOf as partKey, type Part, splitKey, statusOf, VERSION } from './example-kinds.ts';

/** A Machine: the scheduler's Node. Cluster-scoped; `spec.cpu` millicores are what Parts bound to it may use. */
export interface Machine extends KubernetesObject {
  spec?: { cpu?: number; unschedulable?: boolean };
}

/** The CRD's default for a Part's cpu; the server fills it in, this covers an object read before defaulting. */
export const DEFAULT_PART_CPU = 100;

export const partCpu = (part: Part): number => part.spec?.cpu ?? DEFAULT_PART_CPU;
