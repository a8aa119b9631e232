import type { KubeObject } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';
import type { ReinvocationContext } from './reinvocation.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** kube's admission.Attributes: one write, as admission plugins see it. */
export interface AdmissionAttributes {
  readonly operation: Operation;
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  readonly subresource: string;
  readonly namespace: string;
  /** May be empty on CREATE with generateName. */
  readonly name: string;
  /** The new object (CREATE/UPDATE); mutating plugins change it in place. null for DELETE. */
  readonly object: KubeObject | null;
  /** The stored object (UPDATE/DELETE); null for CREATE. Never modify it. */
  readonly oldObject: KubeObject | null;
  readonly dryRun: boolean;
  readonly userInfo: UserInfo;
  /**
   * The request's options as AdmissionReview's request.options: `{apiVersion: 'meta.k8s.io/v1', kind:
   * 'CreateOptions'|'UpdateOptions'|'PatchOptions'|'DeleteOptions', ...}`.
   */
  readonly operationOptions?: Readonly<Record<string, unknown>>;
  /** Other served versions of the kind and a converter (matchPolicy Equivalent, webhook/policy object versions). */
  readonly versions?: {
    readonly served: readonly string[];
    convert(obj: KubeObject, version: string): Promise<KubeObject>;
  };
  /** Audit annotation of this request (kube's attrs.AddAnnotation): key is prefixed by the caller as kube does. */
  readonly annotate?: (key: string, value: string) => void;
  /** A warning for the client (Warning: 299 header). */
  readonly warn?: (message: string) => void;
  /** Set by the chain during mutating admission (kube's ReinvocationContext). */
  readonly reinvocation?: ReinvocationContext;
}
