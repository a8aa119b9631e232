import { type Clock, copyJson, isNotFound, jsonEqual, realClock } from '@kapi/apimachinery';
import type { Store } from '@kapi/registry';
import type { APIService } from '../apiservice/types.ts';
import { runAPIServiceInformer } from '../controller/apiservice-informer.ts';
import { WorkQueue } from '../controller/work-queue.ts';

/** The label that marks an APIService as kept by the autoregister controller, and how. */
export const AUTO_REGISTER_MANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';
/** Synced once when the controller starts (the server chain's own group-versions). */
export const MANAGE_ON_START = 'onstart';
/** Synced continuously (CRD group-versions, and in kapi every group-version that comes or goes at run time). */
export const MANAGE_CONTINUOUSLY = 'true';

export interface AutoRegisterControllerOptions {
  /** The APIService kind's Store (a GenericAPIServer's `store('apiservices.apiregistration.k8s.io')`). */
  apiServices: Store<APIService>;
  clock?: Clock;
  /** Told of every failed sync (it is retried with a backoff) and failed list or watch. Default: ignored. */
  onError?: (err: unknown) => void;
}

const managedType = (s: APIService | undefined): string => s?.metadata.labels?.[AUTO_REGISTER_MANAGED_LABEL] ?? '';
const isManagedOnStart = (s: APIService | undefined): boolean => managedType(s) === MANAGE_ON_START;
const isManaged = (s: APIService | undefined): boolean => managedType(s) === MANAGE_ON_START || managedType(s) === MANAGE_CONTINUOUSLY;

/**
 * kube-aggregator's autoregister controller: keeps a set of desired APIServices present in the API, each either synced
 * once at start (`onstart`) or continuously (`true`), by kube's table (checkAPIService): an APIService someone else
 * created (without the label) is left alone; one labelled `onstart` that was not there at start is left alone; one
 * labelled and no longer desired is deleted; a desired one is created, or its spec updated. Reads APIServices through
 * its own informer (list and watch of the Store) and works one name at a time off a de-duplicating queue.
 *
 * One departure from kube, whose servers never stop serving a built-in group-version: a group-version the server stops
 * serving while it runs (`removeAPIServiceToSync(name, { whileRunning: true })`) has its automanaged APIService
 * deleted whatever its label.
 */
export class AutoRegisterController {
  readonly #store: Store<APIService>;
  readonly #clock: Clock;
  readonly #onError: (err: unknown) => void;
  /** The informer's view: APIServices by name. */
  readonly #current = new Map<string, APIService>();
  readonly #desired = new Map<string, APIService>();
  readonly #syncedSuccessfully = new Set<string>();
  readonly #atStart = new Set<string>();
  readonly #removedWhileRunning = new Set<string>();
  readonly #queue: WorkQueue;
  #abort: AbortController | undefined;

  constructor(options: AutoRegisterControllerOptions) {
    this.#store = options.apiServices;
    this.#clock = options.clock ?? realClock;
    this.#onError = options.onError ?? (() => {});
    this.#queue = new WorkQueue((name) => this.#check(name), this.#clock, this.#onError);
  }

  /** AddAPIServiceToSyncOnStart: `apiService` is created or updated once, when the controller starts. */
  addAPIServiceToSyncOnStart(apiService: APIService): void {
    this.#addToSync(apiService, MANAGE_ON_START);
  }

  /** AddAPIServiceToSync: `apiService` is kept as given from now on. */
  addAPIServiceToSync(apiService: APIService): void {
    this.#addToSync(apiService, MANAGE_CONTINUOUSLY);
  }

  /** RemoveAPIServiceToSync: `name` is no longer desired (a managed APIService of that name goes, see the class). */
  removeAPIServiceToSync(name: string, options: { whileRunning?: boolean } = {}): void {
    this.#desired.delete(name);
    if (options.whileRunning) this.#removedWhileRunning.add(name);
    this.#enqueue(name);
  }

  /** The APIServices desired now (with their label), for tests and health checks. */
  desired(): APIService[] {
    return [...this.#desired.values()].map((s) => copyJson(s));
  }

  #addToSync(apiService: APIService, syncType: string): void {
    const copy = copyJson(apiService);
    copy.metadata.labels = { ...copy.metadata.labels, [AUTO_REGISTER_MANAGED_LABEL]: syncType };
    const name = copy.metadata.name ?? '';
    this.#desired.set(name, copy);
    this.#removedWhileRunning.delete(name);
    this.#enqueue(name);
  }

  /**
   * Starts the informer and, once its first list is in (recording the APIServices present at start), the worker.
   * Resolves then; the work goes on until stop().
   */
  async start(): Promise<void> {
    if (this.#abort) return;
    const abort = new AbortController();
    this.#abort = abort;
    await runAPIServiceInformer(this.#store, this.#current, {
      signal: abort.signal,
      clock: this.#clock,
      onError: this.#onError,
      onChange: (name) => this.#enqueue(name),
      onFirstList: (names) => {
        for (const name of names) this.#atStart.add(name);
      },
    });
    this.#queue.start();
  }

  /** Stops the informer and the worker. */
  stop(): void {
    this.#queue.stop();
    this.#abort?.abort();
  }

  #enqueue(name: string): void {
    this.#queue.add(name);
  }

  /**
   * kube's checkAPIService: syncs the current APIService of `name` against the desired one.
   *
   *                                                 | A. desired: not found | B. sync on start | C. sync always
   * 2. current: not found                           | -                     | create once      | create
   * 3. current: not managed                         | -                     | -                | -
   * 4. current: sync on start, not present at start | -                     | -                | -
   * 5. current: sync on start, present at start     | delete once           | update once      | update once
   * 6. current: sync always                         | delete                | update once      | update
   */
  async #check(name: string): Promise<void> {
    const desired = this.#desired.get(name);
    const current = this.#current.get(name);
    const hasSynced = this.#syncedSuccessfully.has(name);
    await this.#sync(name, desired, current, hasSynced);
    this.#syncedSuccessfully.add(name);
  }

  async #sync(name: string, desired: APIService | undefined, current: APIService | undefined, hasSynced: boolean): Promise<void> {
    if (!current && !desired) return;
    // kapi: the group-version stopped being served while running; its managed APIService goes whatever its label.
    if (!desired && current && isManaged(current) && this.#removedWhileRunning.has(name)) {
      await this.#delete(name);
      this.#removedWhileRunning.delete(name);
      return;
    }
    if (isManagedOnStart(desired) && hasSynced) return;
    if (!current && desired) {
      // AlreadyExists (the informer has not seen it yet) fails the sync, as in kube: it is retried after a backoff.
      await this.#store.create({}, desired);
      return;
    }
    if (!current || !isManaged(current)) return;
    if (isManagedOnStart(current) && !this.#atStart.has(name)) return;
    if (isManagedOnStart(current) && hasSynced) return;
    if (!desired) {
      await this.#delete(name);
      return;
    }
    if (jsonEqual(current.spec ?? {}, desired.spec ?? {})) return;
    const updated = copyJson(current);
    updated.spec = copyJson(desired.spec ?? {});
    await this.#store.update({}, name, updated);
  }

  async #delete(name: string): Promise<void> {
    try {
      await this.#store.delete({}, name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
