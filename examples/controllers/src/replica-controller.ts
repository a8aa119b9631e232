import { type Clock, type LabelSelector, labelSelectorFromMetav1, type MetaV1LabelSelector, realClock } from '@kapi/apimachinery';
import {
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesListObject,
  type ObjectCache,
  type V1LabelSelector,
} from '@kubernetes/client-node';
import {
  API_VERSION,
  controllerOf,
  GROUP,
  keyOf,
  type Part,
  splitKey,
  statusOf,
  VERSION,
  WIDGET_LABEL,
  type Widget,
} from './example-kinds.ts';
import { Expectations } from './expectations.ts';
import { Informer } from './informer.ts';
import { WorkQueue } from './work-queue.ts';

export interface ReplicaControllerOptions {
  kubeConfig: KubeConfig;
  /** Parallel syncs (kube's --concurrent-replicaset-syncs). Default 2. */
  workers?: number;
  /** Times the work queue's retries, the informers' restarts and expectations' timeout. Default: the real clock. */
  clock?: Clock;
  /** First retry delay of a failing Widget (doubled per failure). Default 5 ms. */
  baseDelayMs?: number;
  /** Cap of retry and restart delays. Default 30 s. */
  maxDelayMs?: number;
  /** Told of errors the controller recovers from (failed syncs, informer restarts). Default: console.error. */
  onError?: (err: unknown, what: string) => void;
}

/** What the controller did, for tests and logs. */
export interface ReplicaControllerStats {
  created: number;
  deleted: number;
  adopted: number;
  released: number;
  statusUpdates: number;
  /** Syncs run (finished, failed or not). */
  syncs: number;
  /** Syncs that failed and were requeued with backoff (a 409 among them). */
  retries: number;
}

/**
 * A replica controller for Widget, modeled on kube's ReplicaSet controller: each Widget keeps `spec.replicas` Parts
 * that carry its labels and a controller ownerReference to it (so the garbage collector deletes them with it).
 *
 * - Informers on Widgets and Parts (all namespaces) feed a rate-limited work queue of Widget keys; `workers` syncs
 *   run at once, never two for the same Widget.
 * - A sync claims Parts as kube's ControllerRefManager does: orphans matching the selector are adopted (after
 *   re-reading the Widget from the server, so a deleted Widget adopts nothing), owned Parts that no longer match are
 *   released; then it creates or deletes the difference and writes `status.replicas` and `status.selector` (for the
 *   scale subresource) through the status subresource.
 * - Expectations: after creating or deleting, the Widget is not counted again until the informer has seen those
 *   creations and deletions, so a lagging cache never causes duplicates.
 * - Any failure (a 409 Conflict on the status or an ownerReference update, a 5xx) requeues the Widget with backoff;
 *   the next sync re-reads it from the cache.
 */
export class ReplicaController {
  readonly name = 'replica-controller';
  readonly stats: ReplicaControllerStats = {
    created: 0,
    deleted: 0,
    adopted: 0,
    released: 0,
    statusUpdates: 0,
    syncs: 0,
    retries: 0,
  };
  readonly #api: CustomObjectsApi;
  readonly #workers: number;
  readonly #queue: WorkQueue;
  readonly #expectations: Expectations;
  readonly #widgets: Informer<Widget>;
  readonly #parts: Informer<Part>;
  readonly #onError: (err: unknown, what: string) => void;
  /** Each Part's owning Widget key as last seen, standing in for the old object client-node's updates lack. */
  readonly #lastOwner = new Map<string, string>();

  constructor(options: ReplicaControllerOptions) {
    const clock = options.clock ?? realClock;
    const maxDelayMs = options.maxDelayMs ?? 30_000;
    this.#api = options.kubeConfig.makeApiClient(CustomObjectsApi);
    this.#workers = options.workers ?? 2;
    this.#onError = options.onError ?? ((err, what) => console.error(`${this.name}: ${what}:`, err));
    this.#queue = new WorkQueue({ clock, baseDelayMs: options.baseDelayMs ?? 5, maxDelayMs });
    this.#expectations = new Expectations(clock);
    const informerOptions = {
      clock,
      baseDelayMs: Math.min(1000, maxDelayMs),
      maxDelayMs,
      onError: (err: unknown) => this.#onError(err, 'informer restarted'),
    };
    this.#widgets = new Informer<Widget>(options.kubeConfig, {
      ...informerOptions,
      path: `/apis/${GROUP}/${VERSION}/widgets`,
      list: () =>
        this.#api.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'widgets' }) as Promise<KubernetesListObject<Widget>>,
    });
    this.#parts = new Informer<Part>(options.kubeConfig, {
      ...informerOptions,
      path: `/apis/${GROUP}/${VERSION}/parts`,
      list: () =>
        this.#api.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'parts' }) as Promise<KubernetesListObject<Part>>,
    });
    this.#widgets.on('add', (w) => this.#queue.add(keyOf(w)));
    this.#widgets.on('update', (w) => this.#queue.add(keyOf(w)));
    this.#widgets.on('delete', (w) => {
      this.#expectations.delete(keyOf(w));
      this.#queue.add(keyOf(w));
    });
    this.#parts.on('add', (p) => this.#partAdded(p));
    this.#parts.on('update', (p) => this.#partChanged(p));
    this.#parts.on('delete', (p) => this.#partDeleted(p));
  }

  /** The Part cache (kube's lister): what the controller's syncs see. */
  get parts(): ObjectCache<Part> {
    return this.#parts;
  }

  /** Nothing queued or being synced (keys waiting out a retry delay aside). */
  get idle(): boolean {
    return this.#queue.length === 0 && this.#queue.processing === 0;
  }

  /** The Widget cache. */
  get widgets(): ObjectCache<Widget> {
    return this.#widgets;
  }

  /** Runs until `signal` aborts: informers synced first, then the workers. Resolves when every worker has stopped. */
  async run(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    try {
      await Promise.all([this.#widgets.start(signal), this.#parts.start(signal)]);
    } catch {
      // aborted before the caches synced
    }
    const workers = signal.aborted ? [] : Array.from({ length: this.#workers }, () => this.#worker());
    await stopped;
    this.#queue.shutDown();
    await Promise.all([this.#widgets.stop(), this.#parts.stop(), ...workers]);
  }

  /** The Widget owning a Part by its controller ownerReference, if that Widget is in the cache (same uid). */
  #ownerKey(p: Part): string | undefined {
    const ref = controllerOf(p);
    if (ref?.kind !== 'Widget' || ref.apiVersion?.split('/')[0] !== GROUP) return undefined;
    const w = this.#widgets.get(ref.name, p.metadata?.namespace);
    return w?.metadata?.uid === ref.uid ? keyOf(w) : undefined;
  }

  /** Widgets of the Part's namespace whose selector matches it (getPodReplicaSets), for an orphan. */
  #matchingWidgets(p: Part): string[] {
    return this.#widgets
      .list(p.metadata?.namespace)
      .filter((w) => selectorOf(w).matches(p.metadata?.labels))
      .map(keyOf);
  }

  #partAdded(p: Part): void {
    if (p.metadata?.deletionTimestamp) {
      this.#partDeleted(p);
      return;
    }
    const owner = this.#ownerKey(p);
    this.#remember(p, owner);
    if (owner !== undefined) {
      this.#expectations.creationObserved(owner);
      this.#queue.add(owner);
    } else if (!controllerOf(p)) {
      for (const k of this.#matchingWidgets(p)) this.#queue.add(k);
    }
  }

  #partChanged(p: Part): void {
    // A Part being deleted (a finalizer holds it) counts as gone, as kube's updatePod treats a terminating Pod.
    if (p.metadata?.deletionTimestamp) {
      this.#partDeleted(p);
      return;
    }
    // client-node gives no old object; the owner last seen stands in for it: a Part whose controller changed syncs
    // its old owner too (one Part fewer). Then its owner (labels may no longer match) or, for an orphan, every
    // Widget that might adopt it.
    const owner = this.#ownerKey(p);
    const previous = this.#lastOwner.get(keyOf(p));
    this.#remember(p, owner);
    if (previous !== undefined && previous !== owner) this.#queue.add(previous);
    if (owner !== undefined) this.#queue.add(owner);
    else if (!controllerOf(p)) for (const k of this.#matchingWidgets(p)) this.#queue.add(k);
  }

  #partDeleted(p: Part): void {
    const owner = this.#ownerKey(p) ?? this.#lastOwner.get(keyOf(p));
    this.#lastOwner.delete(keyOf(p));
    if (owner === undefined) return;
    this.#expectations.deletionObserved(owner, keyOf(p));
    this.#queue.add(owner);
  }

  #remember(p: Part, owner: string | undefined): void {
    if (owner === undefined) this.#lastOwner.delete(keyOf(p));
    else this.#lastOwner.set(keyOf(p), owner);
  }

  async #worker(): Promise<void> {
    for (;;) {
      const key = await this.#queue.get();
      if (key === undefined) return;
      try {
        await this.#sync(key);
        this.#queue.forget(key);
      } catch (err) {
        this.stats.retries++;
        if (statusOf(err) !== 409) this.#onError(err, `sync ${key}`);
        this.#queue.addRateLimited(key);
      } finally {
        this.stats.syncs++;
        this.#queue.done(key);
      }
    }
  }

  async #sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const widget = this.#widgets.get(name, namespace);
    if (!widget) {
      this.#expectations.delete(key);
      return;
    }
    const needsSync = this.#expectations.satisfied(key) && !widget.metadata?.deletionTimestamp;
    const selector = selectorOf(widget);
    const active = (await this.#claim(widget, selector)).filter((p) => !p.metadata?.deletionTimestamp);
    let manageError: unknown;
    if (needsSync) {
      try {
        await this.#manage(key, widget, active);
      } catch (err) {
        manageError = err;
      }
    }
    await this.#updateStatus(widget, active.length, selector);
    if (manageError !== undefined) throw manageError;
  }

  /** ControllerRefManager.ClaimPods: the Parts this Widget owns after adopting matching orphans and releasing the rest. */
  async #claim(widget: Widget, selector: LabelSelector): Promise<Part[]> {
    const uid = widget.metadata?.uid;
    const owned: Part[] = [];
    let canAdopt: boolean | undefined;
    for (const p of this.#parts.list(widget.metadata?.namespace)) {
      const ref = controllerOf(p);
      const matches = selector.matches(p.metadata?.labels);
      if (ref) {
        if (ref.uid !== uid) continue;
        if (matches) owned.push(p);
        else if (!widget.metadata?.deletionTimestamp && !p.metadata?.deletionTimestamp) await this.#release(p, uid);
        continue;
      }
      if (!matches || p.metadata?.deletionTimestamp || widget.metadata?.deletionTimestamp) continue;
      // Adopt only if the Widget, read from the server, is still this one and not being deleted (kube's recheck).
      canAdopt ??= await this.#canAdopt(widget);
      if (!canAdopt) continue;
      owned.push(await this.#adopt(p, widget));
    }
    return owned;
  }

  async #canAdopt(widget: Widget): Promise<boolean> {
    const { namespace = '', name = '' } = widget.metadata ?? {};
    const fresh = (await this.#api
      .getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'widgets', name })
      .catch((err) => (statusOf(err) === 404 ? undefined : Promise.reject(err)))) as Widget | undefined;
    return fresh?.metadata?.uid === widget.metadata?.uid && !fresh?.metadata?.deletionTimestamp;
  }

  /** Adds the controller ownerReference; a replace with the cached resourceVersion, so a stale cache gets a 409. */
  async #adopt(p: Part, widget: Widget): Promise<Part> {
    const body: Part = {
      ...p,
      metadata: { ...p.metadata, ownerReferences: [...(p.metadata?.ownerReferences ?? []), ownerReference(widget)] },
    };
    const adopted = (await this.#replacePart(body)) as Part;
    this.stats.adopted++;
    return adopted;
  }

  async #release(p: Part, uid: string | undefined): Promise<void> {
    const body: Part = { ...p, metadata: { ...p.metadata, ownerReferences: p.metadata?.ownerReferences?.filter((r) => r.uid !== uid) } };
    try {
      await this.#replacePart(body);
      this.stats.released++;
    } catch (err) {
      if (statusOf(err) !== 404) throw err; // gone already: nothing to release
    }
  }

  #replacePart(body: Part): Promise<unknown> {
    const { namespace = '', name = '' } = body.metadata ?? {};
    return this.#api.replaceNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'parts', name, body });
  }

  /** manageReplicas: create the missing Parts or delete the surplus, with expectations set first. */
  async #manage(key: string, widget: Widget, active: Part[]): Promise<void> {
    const want = widget.spec?.replicas ?? 1;
    const diff = active.length - want;
    const namespace = widget.metadata?.namespace ?? '';
    if (diff < 0) {
      const n = -diff;
      const labels = labelsOf(widget);
      if (!selectorOf(widget).matches(labels)) throw new Error(`${key}: the selector does not match the labels its Parts get`);
      this.#expectations.expectCreations(key, n);
      const results = await Promise.allSettled(
        Array.from({ length: n }, () =>
          this.#api.createNamespacedCustomObject({
            group: GROUP,
            version: VERSION,
            namespace,
            plural: 'parts',
            body: {
              apiVersion: API_VERSION,
              kind: 'Part',
              metadata: { generateName: `${widget.metadata?.name}-`, namespace, labels, ownerReferences: [ownerReference(widget)] },
              spec: {},
            } satisfies Part,
          }),
        ),
      );
      for (const r of results) {
        if (r.status === 'fulfilled') this.stats.created++;
        else this.#expectations.creationObserved(key); // it will never be seen
      }
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    } else if (diff > 0) {
      const victims = [...active].sort(deletionOrder).slice(0, diff);
      this.#expectations.expectDeletions(key, victims.map(keyOf));
      const results = await Promise.allSettled(
        victims.map((p) =>
          this.#api.deleteNamespacedCustomObject({
            group: GROUP,
            version: VERSION,
            namespace,
            plural: 'parts',
            name: p.metadata?.name ?? '',
            body: { preconditions: { uid: p.metadata?.uid } },
          }),
        ),
      );
      results.forEach((r, i) => {
        const victim = victims[i] as Part;
        if (r.status === 'fulfilled') this.stats.deleted++;
        else if (statusOf(r.reason) !== 404) this.#expectations.deletionObserved(key, keyOf(victim)); // no delete event will come
      });
      const failed = results.find((r) => r.status === 'rejected' && statusOf(r.reason) !== 404);
      if (failed?.status === 'rejected') throw failed.reason;
    }
  }

  /** Writes status.replicas and status.selector if they changed; a 409 fails the sync, which is retried. */
  async #updateStatus(widget: Widget, replicas: number, selector: LabelSelector): Promise<void> {
    const status = { ...widget.status, replicas, selector: selector.toString() };
    if (widget.status?.replicas === status.replicas && widget.status?.selector === status.selector) return;
    const { namespace = '', name = '' } = widget.metadata ?? {};
    try {
      await this.#api.replaceNamespacedCustomObjectStatus({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: 'widgets',
        name,
        body: { ...widget, status },
      });
      this.stats.statusUpdates++;
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
    }
  }
}

/** The Widget's selector: its own, or its name label. */
export function selectorOf(widget: Widget): LabelSelector {
  // The server validated the operators; client-node types them as plain strings.
  return labelSelectorFromMetav1((widget.spec?.selector ?? defaultSelector(widget)) as MetaV1LabelSelector);
}

function defaultSelector(widget: Widget): V1LabelSelector {
  return { matchLabels: { [WIDGET_LABEL]: widget.metadata?.name ?? '' } };
}

/** The labels a new Part gets: the Widget's name label and its selector's matchLabels. */
export function labelsOf(widget: Widget): Record<string, string> {
  return { [WIDGET_LABEL]: widget.metadata?.name ?? '', ...widget.spec?.selector?.matchLabels };
}

function ownerReference(widget: Widget) {
  return {
    apiVersion: API_VERSION,
    kind: 'Widget',
    name: widget.metadata?.name ?? '',
    uid: widget.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** kube's ActivePods ranking, simply: unbound before bound, then the newest first, then by name. */
function deletionOrder(a: Part, b: Part): number {
  const bound = Number(Boolean(a.spec?.machineName)) - Number(Boolean(b.spec?.machineName));
  if (bound !== 0) return bound;
  const ta = new Date(a.metadata?.creationTimestamp ?? 0).getTime();
  const tb = new Date(b.metadata?.creationTimestamp ?? 0).getTime();
  if (ta !== tb) return tb - ta;
  return (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}
