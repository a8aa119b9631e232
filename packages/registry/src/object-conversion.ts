import type { KubeObject } from '@kapi/apimachinery';

/**
 * A kind's conversion between its versions when it may be asynchronous and works on a batch (a CRD's Webhook
 * conversion is an HTTPS call, and kube sends a whole list in one ConversionReview). A definition with one converts
 * every object through it instead of its versions' toHub/fromHub.
 */
export interface ObjectConversion {
  /**
   * The objects, each of any served version of the kind, in version `toVersion` (a version name such as "v2"), in the
   * same order. Must not change its input. Rejects when any object fails to convert; the Store answers that with a 500
   * InternalError carrying the message, as kube-apiserver does. `list`: the objects are a list's items (a list or
   * watch page, converted as one list, as kube converts an UnstructuredList), else each is converted on its own.
   */
  convert(objects: readonly KubeObject[], toVersion: string, list: boolean): Promise<KubeObject[]>;
}
