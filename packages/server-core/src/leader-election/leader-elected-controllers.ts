import type { Clock } from '@kapi/apimachinery';
import type { Store } from '@kapi/registry';
import { LeaderElector } from './leader-elector.ts';
import { storeLeaseLock } from './lease-lock.ts';

/** A controller that must run in one process of a control plane at a time; started again for each leadership term. */
export interface SingletonController {
  start(): void | Promise<void>;
  /** Stops its informers and work; a sync under way may finish. */
  stop(): void | Promise<void>;
}

export interface LeaderElectionConfig {
  /** This process's holderIdentity; unique per process (kube: hostname + '_' + a UUID). */
  identity: string;
  /** The Lease. Default kube-system/kube-controller-manager, kube-controller-manager's. */
  name?: string;
  namespace?: string;
  /** kube's --leader-elect-lease-duration, --leader-elect-renew-deadline, --leader-elect-retry-period. Defaults 15 s, 10 s, 2 s. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
  /** Told of a failed election attempt or controller start. Default: none. */
  onError?: (err: unknown, what: string) => void;
  /** Told of leadership changes, for logs. */
  onEvent?: (event: 'started leading' | 'stopped leading' | `new leader ${string}`) => void;
}

/**
 * kube-controller-manager's leader election for the controllers a kapi server runs in process (the namespace
 * controller, the garbage collector, the ResourceQuota controller, …) when several kapi processes serve one etcd or
 * Redis: one object shared by every server of a chain (GenericAPIServerOptions.leaderElection), racing for one Lease
 * through the chain's own `leases` Store. While this process holds it, every added controller runs; when it loses it
 * (cannot renew within the renew deadline) they are stopped before another process can take over, and it campaigns
 * again (kube exits and is restarted instead). `stop()` stops them and releases the Lease, so a successor starts at once.
 */
export class LeaderElectedControllers {
  readonly identity: string;
  readonly #config: LeaderElectionConfig;
  readonly #controllers = new Map<string, SingletonController>();
  /** Controllers started in the current term, to stop at its end. */
  readonly #running = new Set<string>();
  #leases: (() => Store | undefined) | undefined;
  #elector: LeaderElector | undefined;
  #loop: Promise<void> | undefined;
  #stopped = false;
  #leading = false;
  #leader = '';

  constructor(config: LeaderElectionConfig) {
    if (!config.identity) throw new Error('leader election needs an identity');
    this.identity = config.identity;
    this.#config = config;
  }

  get leaseName(): string {
    return this.#config.name ?? 'kube-controller-manager';
  }

  get leaseNamespace(): string {
    return this.#config.namespace ?? 'kube-system';
  }

  /** Whether this process leads now (its controllers run). */
  get isLeader(): boolean {
    return this.#leading;
  }

  /** The holder last observed ('' when none). */
  get leader(): string {
    return this.#leader;
  }

  /** The names of the added controllers. */
  get controllers(): string[] {
    return [...this.#controllers.keys()];
  }

  /** Adds a controller run while leading; added during a term, it starts at once. */
  add(name: string, controller: SingletonController): void {
    if (this.#controllers.has(name)) throw new Error(`controller ${name} is added already`);
    this.#controllers.set(name, controller);
    if (this.#leading) void this.#startOne(name, controller);
  }

  /**
   * Campaigns through `leases` (the Store serving coordination.k8s.io Leases, looked up at each attempt); a later
   * call only replaces the lookup (each server of a chain calls it at its start; the outermost sees every kind).
   */
  start(leases: () => Store | undefined): void {
    this.#leases = leases;
    if (this.#loop || this.#stopped) return;
    this.#loop = this.#campaign();
  }

  /** Stops the controllers, then releases the Lease; resolves when both are done. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#elector?.stop();
    await this.#loop;
  }

  async #campaign(): Promise<void> {
    const c = this.#config;
    while (!this.#stopped) {
      const elector = new LeaderElector({
        lock: storeLeaseLock(() => this.#leases?.(), this.leaseNamespace, this.leaseName),
        name: this.leaseName,
        namespace: this.leaseNamespace,
        identity: this.identity,
        // Unset timings and clock: the elector's defaults.
        leaseDurationMs: c.leaseDurationMs,
        renewDeadlineMs: c.renewDeadlineMs,
        retryPeriodMs: c.retryPeriodMs,
        clock: c.clock,
        onStartedLeading: (signal) => this.#lead(signal),
        onStoppedLeading: () => c.onEvent?.('stopped leading'),
        onNewLeader: (identity) => {
          this.#leader = identity;
          c.onEvent?.(`new leader ${identity}`);
        },
        onError: (err) => c.onError?.(err, `leader election ${this.leaseNamespace}/${this.leaseName}`),
      });
      this.#elector = elector;
      if (this.#stopped) break;
      await elector.run();
    }
  }

  /** One term: every controller started, then, when the term ends, stopped (last started first). */
  async #lead(signal: AbortSignal): Promise<void> {
    this.#leading = true;
    this.#config.onEvent?.('started leading');
    for (const [name, controller] of this.#controllers) if (!signal.aborted) await this.#startOne(name, controller);
    if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    this.#leading = false;
    for (const name of [...this.#running].reverse()) {
      this.#running.delete(name);
      try {
        await this.#controllers.get(name)?.stop();
      } catch (err) {
        this.#config.onError?.(err, `stop ${name}`);
      }
    }
  }

  async #startOne(name: string, controller: SingletonController): Promise<void> {
    this.#running.add(name);
    try {
      await controller.start();
    } catch (err) {
      this.#config.onError?.(err, `start ${name}`);
    }
  }
}
