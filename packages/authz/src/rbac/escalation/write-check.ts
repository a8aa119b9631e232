import type { KubeObject } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';

/** What a write check is told about a create or update (server-core hands these to the checks of the resource). */
export interface WriteCheckAttributes {
  /** 'CREATE' | 'UPDATE' (other operations pass). */
  readonly operation: string;
  readonly namespace: string;
  readonly name: string;
  /**
   * The object as written (sent or patched, then changed by mutating admission), before the kind's defaults and
   * validation, as kube's policy-based storages see it; it may be malformed.
   */
  readonly object: KubeObject | null;
  /** The stored object an update replaces; null on create. */
  readonly oldObject: KubeObject | null;
  readonly userInfo: UserInfo;
  readonly dryRun: boolean;
}

/**
 * A check a resource's writes must pass before they are stored, as kube's policy-based RBAC storages wrap
 * Create and Update. Refuses by throwing a StatusError (403 Forbidden, 404 NotFound, …).
 */
export interface WriteCheck {
  /** `<resource>.<group>`, e.g. `roles.rbac.authorization.k8s.io`. */
  readonly resource: string;
  check(attrs: WriteCheckAttributes): Promise<void>;
}
