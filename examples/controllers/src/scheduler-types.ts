import type { KubernetesObject } from '@kubernetes/client-node';

/** The API group and version of the example's kinds (crds/machines.yaml, crds/parts.yaml). */
export const GROUP = 'example.kapi.dev';
export const VERSION = 'v1';

/** A Machine: the scheduler's Node. Cluster-scoped; `spec.cpu` millicores are what Parts bound to it may use. */
export interface Machine extends KubernetesObject {
  spec?: { cpu?: number; unschedulable?: boolean };
}

/** A Part: the scheduler's Pod. Pending while `spec.machineName` is empty; the scheduler sets it once. */
export interface Part extends KubernetesObject {
  spec?: { cpu?: number; machineName?: string };
  status?: { phase?: 'Pending' | 'Bound' };
}

/** The CRD's default for a Part's cpu; the server fills it in, this covers an object read before defaulting. */
export const DEFAULT_PART_CPU = 100;

export const partCpu = (part: Part): number => part.spec?.cpu ?? DEFAULT_PART_CPU;

/** A namespaced object's work-queue key, as client-go's MetaNamespaceKeyFunc: `namespace/name`. */
export const partKey = (part: Part): string => `${part.metadata?.namespace ?? ''}/${part.metadata?.name ?? ''}`;

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
