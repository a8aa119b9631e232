import type { Clock } from '@kapi/apimachinery';
import { CustomObjectsApi, type KubeConfig, type KubernetesListObject } from '@kubernetes/client-node';
import type { Controller } from './controller-manager.ts';
import { Informer } from './informer.ts';
import { SchedulerCache } from './scheduler-cache.ts';
import { SchedulingQueue } from './scheduler-queue.ts';
import { GROUP, type Machine, type Part, partCpu, partKey, splitKey, statusOf, VERSION } from './scheduler-types.ts';
import { isPlacement, pickMachine } from './score.ts';
import type { WorkQueueOptions } from './work-queue.ts';

export interface SchedulerOptions {
  kubeConfig: KubeConfig;
  /** Times the work queue's retries and the informers' restarts and reconnects. Default the real clock. */
  clock?: Clock;
  /** The work queue's backoff (default 5 ms doubling to 60 s). */
  queue?: Omit<WorkQueueOptions, 'clock'>;
  /** The informers' first restart delay after an error (default the Informer's, 1 s). */
  informerRestartDelayMs?: number;
  /** Told what the scheduler does (bound, unschedulable, retried). */
  log?: (line: string) => void;
}

/**
 * A toy kube-scheduler: binds each pending Part (no `spec.machineName`) to the Machine that scores best.
 *
 * One attempt (kube's scheduleOne): filter the Machines (not unschedulable, enough free cpu), score the rest
 * (least allocated; ties to the first name), assume the Part on the winner, bind it by updating `spec.machineName`
 * with the resourceVersion it read (optimistic concurrency: a 409 is retried with backoff from a fresh read), then
 * set `status.phase: Bound` through the status subresource. A Part no Machine fits gets `status.phase: Pending` and
 * waits in the unschedulable set until a Machine is added or changed, a bound Part is deleted, or its spec changes.
 *
 * Why one informer over all Parts and not `fieldSelector=spec.machineName=` (which kapi and kube ≥ 1.31 both serve
 * for the CRD's selectable field): the free cpu of a Machine is counted from the bound Parts, so the scheduler
 * needs both sides, and one stream keeps them consistent — a Part's bind is one event, not a DELETED on one watch and
 * an ADDED on another that may arrive in either order. kube-scheduler watches all Pods for the same reason.
 */
export class Scheduler implements Controller {
  readonly #api: CustomObjectsApi;
  readonly #log: (line: string) => void;
  readonly #queue: SchedulingQueue;
  readonly #machines: Informer<Machine>;
  readonly #parts: Informer<Part>;
  readonly #cache: SchedulerCache;
  /** Parts whose next attempt reads them from the server: the informer's copy lost a conflict. */
  readonly #stale = new Set<string>();
  /** UIDs of Parts whose phase this scheduler set, so a lagging informer copy is not written again. */
  readonly #phaseSet = new Set<string>();
  /** The metadata.generation each unschedulable Part had when it was found so: a change that leaves it (status, labels) is no reason to try again. */
  readonly #triedGeneration = new Map<string, number>();
  #worker: Promise<void> | undefined;

  constructor(options: SchedulerOptions) {
    this.#api = options.kubeConfig.makeApiClient(CustomObjectsApi);
    this.#log = options.log ?? (() => {});
    this.#queue = new SchedulingQueue({ ...options.queue, ...(options.clock ? { clock: options.clock } : {}) });
    const informerOptions = {
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.informerRestartDelayMs !== undefined ? { baseDelayMs: options.informerRestartDelayMs } : {}),
      onError: (err: unknown) => this.#log(`informer: ${(err as Error)?.message ?? err}; restarting`),
    };
    this.#machines = new Informer<Machine>(options.kubeConfig, {
      ...informerOptions,
      path: `/apis/${GROUP}/${VERSION}/machines`,
      list: () =>
        this.#api.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'machines' }) as Promise<KubernetesListObject<Machine>>,
    });
    this.#parts = new Informer<Part>(options.kubeConfig, {
      ...informerOptions,
      path: `/apis/${GROUP}/${VERSION}/parts`,
      list: () =>
        this.#api.listCustomObjectForAllNamespaces({ group: GROUP, version: VERSION, resourcePlural: 'parts' }) as Promise<
          KubernetesListObject<Part>
        >,
    });
    this.#cache = new SchedulerCache(() => this.#parts.list());

    // A Machine added or changed may have room (kube: NodeAdd, NodeUpdate). A deleted one frees nothing.
    this.#machines.on('add', () => this.#queue.moveAllToActive());
    this.#machines.on('update', () => this.#queue.moveAllToActive());
    this.#parts.on('add', (part) => this.#partChanged(part));
    this.#parts.on('update', (part) => this.#partChanged(part));
    this.#parts.on('delete', (part) => this.#partDeleted(part));
  }

  /**
   * Starts the informers (Machines first, so the first Parts meet them: kube waits for its caches to sync) and the
   * worker; resolves when both informers have listed, or rejects if `signal` aborts first. A Scheduler runs once:
   * after `stop()`, make a new one.
   */
  async start(signal?: AbortSignal): Promise<void> {
    await this.#machines.start(signal);
    await this.#parts.start(signal);
    this.#worker ??= this.#work();
  }

  /** Stops the worker (an attempt under way finishes) and the informers. */
  async stop(): Promise<void> {
    this.#queue.shutDown();
    await Promise.all([this.#machines.stop(), this.#parts.stop()]);
    await this.#worker;
  }

  /** The ControllerManager's entry: schedules until `signal` aborts, then stops. */
  async run(signal: AbortSignal): Promise<void> {
    const aborted = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    try {
      await this.start(signal);
      await aborted;
    } catch (err) {
      if (!signal.aborted) throw err;
    } finally {
      await this.stop();
    }
  }

  /** Parts waiting for a Machine with room, as `namespace/name`. */
  unschedulable(): string[] {
    return this.#queue.unschedulable();
  }

  #partChanged(part: Part): void {
    this.#cache.observe(part);
    const key = partKey(part);
    if (!part.spec?.machineName) {
      // kube's isPodUpdated: an update of a Part waiting for room that changed no spec (its Pending phase, a label) is
      // no reason to try it again; a spec change (its cpu) is.
      const waiting = this.#queue.isUnschedulable(key) && this.#triedGeneration.get(key) === part.metadata?.generation;
      if (!waiting) this.#queue.add(key);
    } else if (part.status?.phase !== 'Bound' && !this.#phaseSet.has(part.metadata?.uid ?? '')) this.#queue.add(key);
  }

  #partDeleted(part: Part): void {
    const key = partKey(part);
    const held = Boolean(part.spec?.machineName) || this.#cache.isAssumed(key);
    this.#cache.forget(key);
    this.#phaseSet.delete(part.metadata?.uid ?? '');
    this.#triedGeneration.delete(key);
    this.#queue.delete(key);
    // Its cpu is free again (kube: AssignedPodDelete).
    if (held) this.#queue.moveAllToActive();
  }

  /** One worker, as kube schedules one Pod at a time: each decision sees the ones before it (through the cache). */
  async #work(): Promise<void> {
    const queue = this.#queue.active;
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        await this.#schedule(key);
        queue.forget(key);
      } catch (err) {
        this.#log(`${key}: ${statusOf(err) ?? ''} ${(err as Error)?.message ?? err}; retrying`);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  }

  async #schedule(key: string): Promise<void> {
    const attempt = this.#queue.attempt();
    const { namespace, name } = splitKey(key);
    const part = this.#stale.delete(key) ? await this.#read(namespace, name) : this.#parts.get(name, namespace);
    // Gone, or going: nothing to place (kube skips Pods being deleted).
    if (!part || part.metadata?.deletionTimestamp) return;
    if (part.spec?.machineName) {
      await this.#setPhase(key, part);
      return;
    }
    // Bound by this scheduler; the informer has not caught up. Its event brings the Part back if need be.
    if (this.#cache.isAssumed(key)) return;

    const cpu = partCpu(part);
    const usage = this.#cache.usage();
    const placement = pickMachine(this.#machines.list(), cpu, (m) => usage.get(m) ?? 0);
    if (!isPlacement(placement)) {
      this.#log(`${key}: unschedulable: ${placement.message}`);
      this.#triedGeneration.set(key, part.metadata?.generation ?? 0);
      this.#queue.addUnschedulable(key, attempt);
      await this.#markPending(key, part);
      return;
    }
    this.#triedGeneration.delete(key);

    this.#cache.assume(key, placement.machine, cpu);
    let bound: Part;
    try {
      // The bind: the read resourceVersion rides along, so a Part changed since is a 409, never overwritten.
      bound = (await this.#api.replaceNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'parts',
        namespace,
        name,
        body: { ...part, spec: { ...part.spec, machineName: placement.machine } },
      })) as Part;
    } catch (err) {
      this.#cache.forget(key);
      if (statusOf(err) === 404) return;
      if (statusOf(err) === 409) this.#stale.add(key);
      throw err;
    }
    this.#log(`${key}: bound to ${placement.machine} (score ${placement.score})`);
    await this.#setPhase(key, bound);
  }

  /** status.phase: Bound, through the status subresource (a main-resource update does not touch status). */
  async #setPhase(key: string, part: Part): Promise<void> {
    const uid = part.metadata?.uid ?? '';
    if (part.status?.phase === 'Bound' || this.#phaseSet.has(uid)) return;
    try {
      await this.#writePhase(key, part, 'Bound');
    } catch (err) {
      if (statusOf(err) === 404) return;
      if (statusOf(err) === 409) this.#stale.add(key);
      throw err;
    }
    this.#phaseSet.add(uid);
  }

  /**
   * status.phase: Pending on a Part no Machine fits, so `kubectl get parts` shows why it waits (kube sets the Pod's
   * PodScheduled condition to False, reason Unschedulable). Best effort, as kube's: a failure is logged, not retried.
   */
  async #markPending(key: string, part: Part): Promise<void> {
    if (part.status?.phase === 'Pending') return;
    try {
      await this.#writePhase(key, part, 'Pending');
    } catch (err) {
      this.#log(`${key}: setting phase Pending: ${statusOf(err) ?? ''} ${(err as Error)?.message ?? err}`);
    }
  }

  /** Replaces the Part's status with `phase` set, at the Part's resourceVersion (a 409 when it changed since). */
  async #writePhase(key: string, part: Part, phase: 'Bound' | 'Pending'): Promise<void> {
    const { namespace, name } = splitKey(key);
    await this.#api.replaceNamespacedCustomObjectStatus({
      group: GROUP,
      version: VERSION,
      plural: 'parts',
      namespace,
      name,
      body: { ...part, status: { ...part.status, phase } },
    });
  }

  async #read(namespace: string, name: string): Promise<Part | undefined> {
    try {
      return (await this.#api.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'parts', namespace, name })) as Part;
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw err;
    }
  }
}
