import { type Clock, formatMicroTime, realClock } from '@kapi/apimachinery';
import type { LeaseLock, LeaseRecord } from './lease-lock.ts';

export interface LeaderElectorOptions {
  /** Where the Lease is read and written: `storeLeaseLock` in the server's process, a client's elsewhere. */
  lock: LeaseLock;
  /** The Lease's name and namespace, written into a Lease this candidate creates. */
  name: string;
  namespace: string;
  /** This candidate's name in `holderIdentity`; unique per process (kube: hostname + a UUID). */
  identity: string;
  /** How long a holder's lease lasts after its last renewal, as the other candidates observe it. Default 15 s. */
  leaseDurationMs?: number;
  /** The leader gives up when it has not renewed for this long. Default 10 s; less than leaseDurationMs. */
  renewDeadlineMs?: number;
  /** Time between attempts to acquire or renew. Default 2 s. */
  retryPeriodMs?: number;
  /** Every timer and timestamp; tests pass a FakeClock and drive expiry with `advance`. */
  clock?: Clock;
  /**
   * Called on becoming leader; `signal` aborts when leadership is lost or the elector stops. A promise it returns is
   * awaited after that abort, before the Lease is released.
   */
  onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called when leadership ends (lost, or released on stop); not called if this candidate never led. */
  onStoppedLeading?: () => void;
  /** Called whenever the observed holder changes (including to this candidate). */
  onNewLeader?: (identity: string) => void;
  /** Told of failed attempts (other than losing a race). Default: none. */
  onError?: (err: unknown) => void;
}

/** kube-controller-manager's default leader election timings (--leader-elect-lease-duration, -renew-deadline, -retry-period). */
export const LEADER_ELECTION_DEFAULTS = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 } as const;

/**
 * client-go's leaderelection with a LeaseLock: candidates race to write a Lease; the holder renews `renewTime` every
 * `retryPeriodMs`, and the others take it over once they have seen it unchanged for `leaseDurationSeconds` (the time
 * is the candidate's own observation, as in client-go, not the holder's timestamp, so clock skew does not matter).
 * Every write is conditional on the resourceVersion read, so two candidates never both win: the loser's write
 * conflicts. A leader that cannot renew within `renewDeadlineMs` stops leading, and its work is stopped before then
 * another candidate can take over (renewDeadline < leaseDuration). `stop()` releases the Lease (holder emptied, as
 * client-go's ReleaseOnCancel), so a successor need not wait for it to expire.
 *
 * `run()` campaigns until leading, leads until leadership is lost, and resolves then (or when stopped); the caller
 * decides whether to campaign again (kube's controller manager exits the process instead).
 */
export class LeaderElector {
  readonly #o: LeaderElectorOptions & { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  readonly #clock: Clock;
  #observed: LeaseRecord | undefined;
  #observedKey = '';
  #observedAt = 0;
  #leading = false;
  #stopped = false;
  #wake: (() => void) | undefined;
  #timer: ReturnType<Clock['setTimeout']> | undefined;
  #reportedLeader: string | undefined;
  /** The pending attempt's requests, aborted by stop() or the renew deadline. */
  #attempt: AbortController | undefined;

  constructor(options: LeaderElectorOptions) {
    this.#o = {
      ...options,
      leaseDurationMs: options.leaseDurationMs ?? LEADER_ELECTION_DEFAULTS.leaseDurationMs,
      renewDeadlineMs: options.renewDeadlineMs ?? LEADER_ELECTION_DEFAULTS.renewDeadlineMs,
      retryPeriodMs: options.retryPeriodMs ?? LEADER_ELECTION_DEFAULTS.retryPeriodMs,
    };
    if (this.#o.renewDeadlineMs >= this.#o.leaseDurationMs) throw new Error('renewDeadlineMs must be less than leaseDurationMs');
    this.#clock = options.clock ?? realClock;
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  /** The holder last observed ('' when released or none). */
  get leader(): string {
    return this.#observed?.spec?.holderIdentity ?? '';
  }

  /** Campaign, lead, and resolve when leadership ends or `stop()` is called. */
  async run(): Promise<void> {
    this.#stopped = false;
    // Acquire: try every retryPeriod until this candidate holds the Lease.
    while (!this.#stopped && !(await this.#tryAcquireOrRenew())) await this.#sleep(this.#o.retryPeriodMs);
    if (this.#stopped) return;
    this.#leading = true;
    const leadership = new AbortController();
    let leading: Promise<void> = Promise.resolve();
    try {
      leading = Promise.resolve(this.#o.onStartedLeading(leadership.signal)).catch((err) => this.#o.onError?.(err));
    } catch (err) {
      this.#o.onError?.(err);
    }
    // Renew: every retryPeriod; give up when no renewal succeeded for renewDeadline.
    let renewedAt = this.#clock.now();
    while (!this.#stopped) {
      await this.#sleep(this.#o.retryPeriodMs);
      if (this.#stopped) break;
      // Like client-go's renew context: an attempt still pending at the renew deadline is aborted.
      if (await this.#tryAcquireOrRenew(renewedAt + this.#o.renewDeadlineMs)) renewedAt = this.#clock.now();
      else if (this.#clock.now() - renewedAt >= this.#o.renewDeadlineMs) break;
    }
    // The leader's work stops before the Lease is released, so the next leader never overlaps it.
    leadership.abort(new Error(this.#stopped ? 'stopped' : 'leadership lost'));
    await leading;
    if (this.#stopped) await this.#release();
    this.#leading = false;
    this.#o.onStoppedLeading?.();
  }

  /** Stops campaigning or leading; a leader releases the Lease before `run()` resolves. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#wake?.();
    this.#attempt?.abort();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
      this.#timer = this.#clock.setTimeout(() => {
        this.#timer = undefined;
        resolve();
      }, ms);
    });
  }

  /** client-go's tryAcquireOrRenew: true when this candidate holds the Lease after the attempt. */
  async #tryAcquireOrRenew(deadline?: number): Promise<boolean> {
    const attempt = new AbortController();
    this.#attempt = attempt;
    const timer =
      deadline === undefined ? undefined : this.#clock.setTimeout(() => attempt.abort(), Math.max(0, deadline - this.#clock.now()));
    try {
      return await this.#abortable(this.#tryAcquireOrRenewOnce(attempt.signal), attempt.signal);
    } catch (err) {
      if (!attempt.signal.aborted) this.#o.onError?.(err);
      return false;
    } finally {
      if (timer !== undefined) this.#clock.clearTimeout(timer);
      this.#attempt = undefined;
    }
  }

  /** An attempt whose lock ignores the signal (a Store in process) still ends when it aborts. */
  #abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  async #tryAcquireOrRenewOnce(signal: AbortSignal): Promise<boolean> {
    const now = this.#clock.now();
    const me = this.#o.identity;
    const spec = (acquireTime: string, transitions: number) => ({
      holderIdentity: me,
      leaseDurationSeconds: Math.ceil(this.#o.leaseDurationMs / 1000),
      acquireTime,
      renewTime: formatMicroTime(now),
      leaseTransitions: transitions,
    });
    const current = await this.#o.lock.get(signal);
    if (!current) {
      const created = await this.#o.lock.create(
        {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.#o.name, namespace: this.#o.namespace },
          spec: spec(formatMicroTime(now), 0),
        },
        signal,
      );
      if (!created) return false; // another candidate created it first
      this.#observe(created);
      return true;
    }
    this.#observe(current);
    const holder = current.spec?.holderIdentity ?? '';
    const valid = this.#observedAt + (current.spec?.leaseDurationSeconds ?? 0) * 1000 > this.#clock.now();
    if (holder !== '' && holder !== me && valid) return false;
    const transitions = current.spec?.leaseTransitions ?? 0;
    const updated = await this.#o.lock.update(
      {
        ...current,
        spec:
          holder === me
            ? spec(current.spec?.acquireTime ?? formatMicroTime(now), transitions)
            : spec(formatMicroTime(now), transitions + 1),
      },
      signal,
    );
    if (!updated) return false;
    this.#observe(updated);
    return true;
  }

  /** client-go's release: the holder emptied (so others acquire at once), leaseTransitions kept. */
  async #release(): Promise<boolean> {
    const current = this.#observed;
    if (current?.spec?.holderIdentity !== this.#o.identity) return false;
    const now = this.#clock.now();
    try {
      const released = await this.#o.lock.update({
        ...current,
        spec: {
          ...current.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: formatMicroTime(now),
          renewTime: formatMicroTime(now),
        },
      });
      if (!released) return false;
      this.#observe(released);
      return true;
    } catch (err) {
      this.#o.onError?.(err);
      return false;
    }
  }

  /** Records the Lease and, when its record changed, when this candidate saw it change (client-go's observedTime). */
  #observe(lease: LeaseRecord): void {
    const key = JSON.stringify(lease.spec ?? {});
    if (key !== this.#observedKey) {
      this.#observedKey = key;
      this.#observedAt = this.#clock.now();
    }
    this.#observed = lease;
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== this.#reportedLeader) {
      this.#reportedLeader = holder;
      if (holder !== '') this.#o.onNewLeader?.(holder);
    }
  }
}
