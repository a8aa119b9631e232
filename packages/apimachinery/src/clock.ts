/** Time as a dependency, so behaviour that depends on it (TTL, bookmarks, compaction) is tested without sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export interface TimerHandle {
  /** Lets the process exit while this timer is pending (no-op on fake clocks). */
  unref?(): void;
}

/** The real clock. */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

interface FakeTimer extends TimerHandle {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that moves only when told; timers fire in due order during `advance`. */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: FakeTimer[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const t: FakeTimer = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn, cancelled: false };
    this.#timers.push(t);
    return t;
  }

  clearTimeout(handle: TimerHandle): void {
    (handle as FakeTimer).cancelled = true;
  }

  /** Timers not yet fired or cancelled. */
  get pending(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due (including ones scheduled while advancing). */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      this.#timers = this.#timers.filter((t) => !t.cancelled);
      let next: FakeTimer | undefined;
      for (const t of this.#timers) if (t.at <= end && (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t;
      if (!next) break;
      this.#now = Math.max(this.#now, next.at);
      next.cancelled = true;
      next.fn();
    }
    this.#now = end;
  }
}
