import type { KubernetesObject, V1LabelSelector, V1OwnerReference } from '@kubernetes/client-node';

/** The example kinds' API group and version (Widget is built into the example control plane; Machine and Part are CRDs). */
export const GROUP = 'example.kapi.dev';
export const VERSION = 'v1';
export const API_VERSION = `${GROUP}/${VERSION}`;
/** The label a Widget's Parts carry when the Widget has no selector of its own. */
export const WIDGET_LABEL = 'example.kapi.dev/widget';

export interface Widget extends KubernetesObject {
  spec?: { replicas?: number; selector?: V1LabelSelector; color?: string };
  status?: { replicas?: number; selector?: string };
}

export interface Part extends KubernetesObject {
  spec?: { cpu?: number; machineName?: string };
  status?: { phase?: 'Pending' | 'Bound' };
}

/** The ownerReference with `controller: true`, if any (metav1.GetControllerOf). */
export function controllerOf(obj: KubernetesObject): V1OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** `namespace/name`, the work queue's key (cache.MetaNamespaceKeyFunc). */
export function keyOf(obj: KubernetesObject): string {
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${obj.metadata?.name}` : (obj.metadata?.name ?? '');
}

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** The HTTP status of a client-node error (ApiException's `code`), or undefined. */
export function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}
