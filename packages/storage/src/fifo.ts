/**
 * A first-in first-out queue on one array: `shift` is O(1) (a head index instead of Array.prototype.shift), and the
 * consumed front is dropped once it is over half the array, so memory follows what is queued. Taken slots are
 * cleared at once, so delivered values can be collected while the rest waits.
 */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(value: T): void {
    this.#items.push(value);
  }

  /** The oldest value, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const value = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    if (this.#head === this.#items.length) this.clear();
    else if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return value;
  }

  clear(): void {
    this.#items = [];
    this.#head = 0;
  }
}
