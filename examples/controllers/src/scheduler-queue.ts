import { WorkQueue, type WorkQueueOptions } from './work-queue.ts';

/**
 * kube's scheduling queue in miniature: Parts to try (the active queue, a rate-limited WorkQueue that also holds the
 * retries after errors) and Parts that fit no Machine (the unschedulable set), which wait there until a cluster event
 * that could make room — a Machine added or changed, a bound Part deleted — moves them all back.
 *
 * An event that arrives while a Part is being tried could be the one it needs; as kube's moveRequestCycle does, such
 * a Part goes back to the active queue instead of the unschedulable set.
 */
export class SchedulingQueue {
  readonly active: WorkQueue;
  readonly #unschedulable = new Set<string>();
  #moves = 0;

  constructor(options: WorkQueueOptions = {}) {
    this.active = new WorkQueue(options);
  }

  /** A Part to try now (new, or changed). */
  add(key: string): void {
    this.#unschedulable.delete(key);
    this.active.add(key);
  }

  /** Forgets a Part that is gone or bound. */
  delete(key: string): void {
    this.#unschedulable.delete(key);
    this.active.forget(key);
  }

  /** A mark taken when an attempt starts, for `addUnschedulable`. */
  attempt(): number {
    return this.#moves;
  }

  /** The Part fit no Machine in the attempt that started at `attempt`. */
  addUnschedulable(key: string, attempt: number): void {
    if (this.#moves !== attempt) this.active.add(key);
    else this.#unschedulable.add(key);
  }

  /** A cluster event that may make room: every unschedulable Part is tried again. */
  moveAllToActive(): void {
    this.#moves++;
    for (const key of this.#unschedulable) this.active.add(key);
    this.#unschedulable.clear();
  }

  isUnschedulable(key: string): boolean {
    return this.#unschedulable.has(key);
  }

  /** The keys waiting for room, sorted. */
  unschedulable(): string[] {
    return [...this.#unschedulable].sort();
  }

  shutDown(): void {
    this.active.shutDown();
  }
}
