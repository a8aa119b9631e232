/**
 * Whether a cache may serve (k8s.io/apiserver's ready): pending until its first full list, pending again while it
 * relists after losing history, stopped for good once closed.
 */
export class Ready {
  #state: 'pending' | 'ready' | 'stopped' = 'pending';
  #waiters: { resolve: () => void; reject: (err: Error) => void }[] = [];

  /** True when the cache is synced and serving. */
  check(): boolean {
    return this.#state === 'ready';
  }

  get stopped(): boolean {
    return this.#state === 'stopped';
  }

  set(ready: boolean): void {
    if (this.#state === 'stopped') return;
    this.#state = ready ? 'ready' : 'pending';
    if (ready) this.#settle();
  }

  /** Resolves once ready; rejects if the cache is stopped first. */
  wait(): Promise<void> {
    if (this.#state === 'ready') return Promise.resolve();
    if (this.#state === 'stopped') return Promise.reject(new Error('cacher stopped'));
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  stop(): void {
    this.#state = 'stopped';
    this.#settle(new Error('cacher stopped'));
  }

  #settle(err?: Error): void {
    const ws = this.#waiters;
    this.#waiters = [];
    for (const w of ws) {
      if (err) w.reject(err);
      else w.resolve();
    }
  }
}
