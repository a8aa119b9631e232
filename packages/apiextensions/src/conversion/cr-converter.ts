import type { KubeObject } from '@kapi/apimachinery';

/**
 * A list of custom resources to convert: `items`, and the list's own apiVersion and kind when it is a list (both
 * unset when a single object is being converted, as kube wraps it in an UnstructuredList without them).
 */
export interface UnstructuredList {
  apiVersion?: string;
  kind?: string;
  items: KubeObject[];
}

/**
 * kube's conversion.CRConverter: converts every item to `targetGV` ("group/version"). It may change the objects it is
 * given; the DelegatingConverter hands it copies and checks what comes back (count, apiVersion, kind, metadata).
 */
export interface CRConverter {
  convert(list: UnstructuredList, targetGV: string): Promise<UnstructuredList>;
}

/** kube's nopConverter (conversion strategy None): only apiVersion changes. */
export const nopConverter: CRConverter = {
  async convert(list, targetGV) {
    for (const item of list.items) item.apiVersion = targetGV;
    return list;
  },
};
