import { isAlreadyExists, isConflict, isNotFound } from '@kapi/apimachinery';
import type { Store } from '@kapi/registry';

/** coordination.k8s.io/v1 Lease as the elector reads and writes it (its spec times are metav1.MicroTime strings). */
export interface LeaseRecord {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; resourceVersion?: string; [key: string]: unknown };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/**
 * client-go's resourcelock.Interface for a Lease, reduced to what the elector needs: read the Lease, create it, or
 * replace it conditionally on the resourceVersion it carries. A lost race (the Lease exists already, or changed since
 * it was read) answers `undefined`; other failures throw.
 */
export interface LeaseLock {
  /** The Lease, or undefined when there is none. */
  get(signal?: AbortSignal): Promise<LeaseRecord | undefined>;
  /** The created Lease, or undefined when another candidate created it first. */
  create(lease: LeaseRecord, signal?: AbortSignal): Promise<LeaseRecord | undefined>;
  /** The updated Lease, or undefined on a conflict (another candidate wrote it since `lease` was read). */
  update(lease: LeaseRecord, signal?: AbortSignal): Promise<LeaseRecord | undefined>;
}

/**
 * A LeaseLock over a server's own `leases` Store, for controllers running in the API server's process: the writes go
 * to the backend with the resourceVersion read as a precondition, so candidates in several processes sharing one etcd
 * or Redis never both win. A read without resourceVersion is consistent (kube's quorum read; the watch cache answers it
 * once caught up with the backend), so a renewal is never judged against a stale Lease.
 */
export function storeLeaseLock(leases: () => Store | undefined, namespace: string, name: string): LeaseLock {
  const store = (): Store => {
    const s = leases();
    if (!s) throw new Error('leader election needs coordination.k8s.io Leases served by this server');
    return s;
  };
  const ctx = { namespace };
  return {
    async get() {
      try {
        return (await store().get(ctx, name)) as unknown as LeaseRecord;
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async create(lease) {
      try {
        return (await store().create(ctx, lease)).object as unknown as LeaseRecord;
      } catch (err) {
        if (isAlreadyExists(err) || isConflict(err)) return undefined;
        throw err;
      }
    },
    async update(lease) {
      try {
        return (await store().update(ctx, name, lease)).object as unknown as LeaseRecord;
      } catch (err) {
        if (isConflict(err) || isNotFound(err)) return undefined;
        throw err;
      }
    },
  };
}
