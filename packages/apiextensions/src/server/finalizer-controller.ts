import { type Clock, jsonEqual, StatusError } from '@kapi/apimachinery';
import { rfc3339Seconds, type Store } from '@kapi/registry';
import {
  CUSTOM_RESOURCE_CLEANUP_FINALIZER,
  findCRDCondition,
  isCRDConditionTrue,
  setCRDCondition,
  TERMINATING_INSTANCE_DELETION_COMPLETED,
  TERMINATING_INSTANCE_DELETION_IN_PROGRESS,
  TERMINATING_INSTANCE_DELETION_PENDING,
  TERMINATING_NEVER_ESTABLISHED,
  terminatingFailed,
} from '../crd/conditions.ts';
import type { CustomResourceDefinition } from '../crd/types.ts';
import type { CRDInformer } from './crd-informer.ts';

type Condition = Parameters<typeof setCRDCondition>[1];

/**
 * kube's CRD finalizer controller (customresourcecleanup.apiextensions.k8s.io): once a CRD is deleted it marks it
 * Terminating (InstanceDeletionInProgress), deletes every instance of its kind, waits until none is left (instances
 * with finalizers of their own take their time: the CRD is looked at again later), records InstanceDeletionCompleted
 * (NeverEstablished when the kind was never served) and drops its finalizer, which lets the CRD go.
 */
export class FinalizerController {
  readonly #informer: CRDInformer;
  readonly #crds: () => Store;
  readonly #instances: (crd: CustomResourceDefinition) => Store | undefined;
  readonly #clock: Clock;

  constructor(options: {
    informer: CRDInformer;
    crds: () => Store;
    /** The Store serving the CRD's kind, while it is served. */
    instances: (crd: CustomResourceDefinition) => Store | undefined;
    clock: Clock;
  }) {
    this.#informer = options.informer;
    this.#crds = options.crds;
    this.#instances = options.instances;
    this.#clock = options.clock;
  }

  /**
   * Whether a change of a CRD is this controller's work: a CRD being deleted that still has the cleanup finalizer, and
   * not just a change of its Terminating condition — this controller writes that itself, and would wake itself in a loop
   * (kube's updateCustomResourceDefinition). A failure is retried by the queue.
   */
  static wants(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): boolean {
    if (!crd.metadata.deletionTimestamp || !crd.metadata.finalizers?.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) return false;
    if (!old || old.metadata.resourceVersion === crd.metadata.resourceVersion) return true;
    const withoutTerminating = (c: CustomResourceDefinition) => ({
      ...c,
      metadata: { ...c.metadata, resourceVersion: '' },
      status: { ...c.status, conditions: (c.status?.conditions ?? []).filter((x) => x.type !== 'Terminating') },
    });
    return !jsonEqual(withoutTerminating(crd), withoutTerminating(old));
  }

  /** True: instances are left (or a step failed), look again later. */
  async sync(name: string): Promise<boolean> {
    try {
      return await this.#sync(name);
    } catch (err) {
      // Deleted or changed meanwhile: the informer brings it back if there is still work (kube's crd_finalizer).
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return false;
      throw err;
    }
  }

  async #sync(name: string): Promise<boolean> {
    let crd = this.#informer.get(name);
    if (!crd?.metadata.deletionTimestamp || !crd.metadata.finalizers?.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) return false;
    // Clients see that deletion is under way first; this can take a while. A failure recorded earlier stays until the
    // outcome changes: rewriting it each time would wake this controller with its own writes.
    const terminating = findCRDCondition(crd, 'Terminating');
    if (!terminating || terminating.reason === TERMINATING_INSTANCE_DELETION_PENDING.reason)
      crd = await this.#setCondition(crd, TERMINATING_INSTANCE_DELETION_IN_PROGRESS);
    if (isCRDConditionTrue(crd, 'Established')) {
      const failed = await this.#deleteInstances(crd);
      if (failed) {
        await this.#setCondition(crd, failed);
        return true;
      }
      crd = await this.#setCondition(crd, TERMINATING_INSTANCE_DELETION_COMPLETED);
    } else {
      crd = await this.#setCondition(crd, TERMINATING_NEVER_ESTABLISHED);
    }
    // Without its last finalizer the CRD is deleted by this update.
    const next = structuredClone(crd);
    next.metadata.finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== CUSTOM_RESOURCE_CLEANUP_FINALIZER);
    await this.#crds().update({}, name, next);
    return false;
  }

  /** Deletes every instance; the Terminating condition to record when some are left or could not be deleted. */
  async #deleteInstances(crd: CustomResourceDefinition): Promise<Condition | undefined> {
    const store = this.#instances(crd);
    if (!store) return undefined;
    let items: { metadata: { name?: string; namespace?: string; deletionTimestamp?: string } }[];
    try {
      items = (await store.list({})).items;
    } catch (err) {
      return terminatingFailed.list(messageOf(err));
    }
    const errors: string[] = [];
    await Promise.all(
      items
        .filter((o) => !o.metadata.deletionTimestamp)
        .map(async (o) => {
          try {
            await store.delete({ namespace: o.metadata.namespace ?? '' }, o.metadata.name ?? '', { propagationPolicy: 'Background' });
          } catch (err) {
            if (!(err instanceof StatusError && err.status.code === 404)) errors.push(messageOf(err));
          }
        }),
    );
    if (errors.length) return terminatingFailed.delete(errors.join(', '));
    try {
      const left = (await store.list({})).items.length;
      if (left) return terminatingFailed.check(`${left} CustomResource${left === 1 ? '' : 's'} remaining`);
    } catch (err) {
      return terminatingFailed.check(messageOf(err));
    }
    return undefined;
  }

  /** The CRD with `condition` set, written when that changed it. */
  async #setCondition(crd: CustomResourceDefinition, condition: Condition): Promise<CustomResourceDefinition> {
    if (sameCondition(findCRDCondition(crd, condition.type), condition)) return crd;
    const next = structuredClone(crd);
    setCRDCondition(next, condition, rfc3339Seconds(this.#clock.now()));
    const { object } = await this.#crds().update({}, crd.metadata.name ?? '', next, { subresource: 'status' });
    return object as CustomResourceDefinition;
  }
}

function sameCondition(a: Condition | undefined, b: Condition): boolean {
  return a?.status === b.status && a.reason === b.reason && a.message === b.message;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
