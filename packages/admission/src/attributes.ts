import type { KubeObject } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';

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
}
