import type { TestServer } from '@kapi/testing';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { GROUP, type Part, VERSION, type Widget } from '../example-kinds.ts';

/** Typed calls on Widgets and Parts of one namespace, for tests. */
export function exampleClient(kapi: TestServer, namespace = 'default') {
  const api = kapi.kubeConfig.makeApiClient(CustomObjectsApi);
  const base = { group: GROUP, version: VERSION, namespace };
  return {
    api,
    createWidget: (name: string, spec: Widget['spec'] = {}) =>
      api.createNamespacedCustomObject({
        ...base,
        plural: 'widgets',
        body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { name }, spec },
      }) as Promise<Widget>,
    getWidget: (name: string) => api.getNamespacedCustomObject({ ...base, plural: 'widgets', name }) as Promise<Widget>,
    scale: async (name: string, replicas: number) =>
      (await api.patchNamespacedCustomObject(
        { ...base, plural: 'widgets', name, body: { spec: { replicas } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )) as Widget,
    deleteWidget: (name: string) => api.deleteNamespacedCustomObject({ ...base, plural: 'widgets', name }),
    createPart: (name: string, labels: Record<string, string>) =>
      api.createNamespacedCustomObject({
        ...base,
        plural: 'parts',
        body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Part', metadata: { name, labels } },
      }) as Promise<Part>,
    deletePart: (name: string) => api.deleteNamespacedCustomObject({ ...base, plural: 'parts', name }),
    parts: async (labelSelector?: string) =>
      ((await api.listNamespacedCustomObject({ ...base, plural: 'parts', labelSelector })) as { items: Part[] }).items,
  };
}
