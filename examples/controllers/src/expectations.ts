import { type Clock, realClock } from '@kapi/apimachinery';

/** kube's ExpectationsTimeout: expectations older than this are treated as met (a lost watch event must not wedge a controller). */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

interface Expected {
  adds: number;
  /** Keys of the children being deleted (kube's UIDTrackingControllerExpectations; a delete is observed once per key). */
  deletes: Set<string>;
  at: number;
}

/**
 * kube's controller expectations, simply: after a sync creates n children or deletes some, the controller expects
 * to see those creations and deletions in its informer's cache before it counts children again — otherwise a sync
 * running on a lagging cache would create (or delete) the same children twice.
 */
export class Expectations {
  readonly #clock: Clock;
  readonly #byKey = new Map<string, Expected>();

  constructor(clock: Clock = realClock) {
    this.#clock = clock;
  }

  /** True when the owner's expected creations and deletions have all been observed (or are too old to wait for). */
  satisfied(key: string): boolean {
    const e = this.#byKey.get(key);
    if (!e) return true;
    if (e.adds <= 0 && e.deletes.size === 0) return true;
    return this.#clock.now() - e.at > EXPECTATIONS_TIMEOUT_MS;
  }

  expectCreations(key: string, n: number): void {
    this.#byKey.set(key, { adds: n, deletes: new Set(), at: this.#clock.now() });
  }

  expectDeletions(key: string, childKeys: readonly string[]): void {
    this.#byKey.set(key, { adds: 0, deletes: new Set(childKeys), at: this.#clock.now() });
  }

  /** A child was seen created (or its creation failed, so it never will be). */
  creationObserved(key: string): void {
    const e = this.#byKey.get(key);
    if (e) e.adds--;
  }

  /** A child was seen deleted (or its deletion failed). */
  deletionObserved(key: string, childKey: string): void {
    this.#byKey.get(key)?.deletes.delete(childKey);
  }

  /** The owner is gone. */
  delete(key: string): void {
    this.#byKey.delete(key);
  }
}
