import { type Clock, realClock } from '@kapi/apimachinery';
import type { KubeConfig } from '@kubernetes/client-node';
import { type LeaderElectionOptions, LeaderElector } from './leader-election.ts';

/** A controller the manager runs: `run` works until `signal` aborts, then resolves once it has stopped. */
export interface Controller {
  run(signal: AbortSignal): Promise<void>;
}

/** What a controller is built from each time this manager starts leading. */
export interface ControllerContext {
  kubeConfig: KubeConfig;
  /** This manager's identity (its Lease holderIdentity). */
  identity: string;
}

/** Builds a fresh controller for each leadership term (informers and queues do not outlive one). */
export type ControllerFactory = (context: ControllerContext) => Controller;

export interface ControllerManagerOptions {
  kubeConfig: KubeConfig;
  identity: string;
  /**
   * The Lease every manager of this name races for (kube-controller-manager's `kube-system/kube-controller-manager`),
   * with the elector's timings; `false` runs the controllers at once, unelected.
   */
  leaderElection?:
    | false
    | Partial<Pick<LeaderElectionOptions, 'name' | 'namespace' | 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>>;
  /** The leader election's clock (tests: the test server's FakeClock). Default: the real one. */
  clock?: Clock;
  /** Told of errors: a controller that failed, a leader election attempt that failed. Default: console.error. */
  onError?: (err: unknown, what: string) => void;
  /** Told of leadership changes, for logs. */
  onEvent?: (event: 'started leading' | 'stopped leading' | `new leader ${string}`) => void;
}

/**
 * kube-controller-manager in small: it takes leadership through a Lease and, while it leads, runs every registered
 * controller; when leadership is lost the controllers are stopped (their signal aborts) and it campaigns again — kube
 * exits the process instead, and a supervisor restarts it; campaigning again keeps an in-process test simple.
 *
 * @example
 * const manager = new ControllerManager({ kubeConfig, identity: 'host-1' });
 * manager.register('replica-controller', ({ kubeConfig }) => new ReplicaController({ kubeConfig }));
 * await manager.run(signal); // until signal aborts; a leader releases its Lease on the way out
 */
export class ControllerManager {
  readonly #options: ControllerManagerOptions;
  readonly #factories = new Map<string, ControllerFactory>();
  #elector: LeaderElector | undefined;
  #leading = false;

  constructor(options: ControllerManagerOptions) {
    this.#options = options;
  }

  /** Adds a controller by name; registered before `run`. */
  register(name: string, factory: ControllerFactory): this {
    if (this.#factories.has(name)) throw new Error(`controller ${name} is registered already`);
    this.#factories.set(name, factory);
    return this;
  }

  get controllers(): string[] {
    return [...this.#factories.keys()];
  }

  /** True while this manager leads (or always, with leader election off, once running). */
  get isLeader(): boolean {
    return this.#leading;
  }

  /** Runs until `signal` aborts; resolves when every controller has stopped and the Lease is released. */
  async run(signal: AbortSignal): Promise<void> {
    const { leaderElection = {} } = this.#options;
    if (leaderElection === false) {
      this.#leading = true;
      await this.#runControllers(signal);
      this.#leading = false;
      return;
    }
    while (!signal.aborted) {
      const elector = new LeaderElector({
        kubeConfig: this.#options.kubeConfig,
        name: 'example-controller-manager',
        ...leaderElection,
        identity: this.#options.identity,
        clock: this.#options.clock ?? realClock,
        onStartedLeading: (leadership) => {
          this.#leading = true;
          this.#options.onEvent?.('started leading');
          return this.#runControllers(leadership);
        },
        onStoppedLeading: () => {
          this.#leading = false;
          this.#options.onEvent?.('stopped leading');
        },
        onNewLeader: (id) => this.#options.onEvent?.(`new leader ${id}`),
        onError: (err) => this.#onError(err, 'leader election'),
      });
      this.#elector = elector;
      const stop = () => elector.stop();
      signal.addEventListener('abort', stop, { once: true });
      await elector.run();
      signal.removeEventListener('abort', stop);
    }
  }

  /** The holder this manager last observed. */
  get leader(): string {
    return this.#elector?.leader ?? '';
  }

  async #runControllers(signal: AbortSignal): Promise<void> {
    const context = { kubeConfig: this.#options.kubeConfig, identity: this.#options.identity };
    await Promise.all(
      [...this.#factories].map(async ([name, factory]) => {
        try {
          await factory(context).run(signal);
        } catch (err) {
          this.#onError(err, name);
        }
      }),
    );
  }

  #onError(err: unknown, what: string): void {
    if (this.#options.onError) this.#options.onError(err, what);
    else console.error(`controller-manager: ${what}:`, err);
  }
}
