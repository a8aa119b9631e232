import { type Part, partCpu, partKey } from './scheduler-types.ts';

interface Assumed {
  machine: string;
  cpu: number;
}

/**
 * kube's scheduler cache in miniature: what each Machine has in use is the cpu of the Parts the informer shows bound
 * to it plus the Parts this scheduler has bound ("assumed") that the informer does not show bound yet. Without the
 * assumptions, two Parts scheduled back to back would both see the cpu the first took as free, because the
 * informer's event for the first bind arrives after the second decision.
 */
export class SchedulerCache {
  readonly #parts: () => readonly Part[];
  readonly #assumed = new Map<string, Assumed>();

  /** `parts`: the Parts informer's cache. */
  constructor(parts: () => readonly Part[]) {
    this.#parts = parts;
  }

  /** Counts `key` against `machine` before its bind is sent (kube: AssumePod). */
  assume(key: string, machine: string, cpu: number): void {
    this.#assumed.set(key, { machine, cpu });
  }

  /** Drops an assumption: its bind failed, or the Part is gone (kube: ForgetPod). */
  forget(key: string): void {
    this.#assumed.delete(key);
  }

  isAssumed(key: string): boolean {
    return this.#assumed.has(key);
  }

  /** The informer saw the Part: once it shows it bound, it is counted from there and the assumption is done. */
  observe(part: Part): void {
    if (part.spec?.machineName) this.#assumed.delete(partKey(part));
  }

  /** Millicores in use on each Machine. */
  usage(): Map<string, number> {
    const used = new Map<string, number>();
    const add = (machine: string, cpu: number) => used.set(machine, (used.get(machine) ?? 0) + cpu);
    const counted = new Set<string>();
    for (const part of this.#parts()) {
      const machine = part.spec?.machineName;
      // A Part being deleted still holds its cpu until it is gone, as a terminating Pod does.
      if (!machine) continue;
      add(machine, partCpu(part));
      counted.add(partKey(part));
    }
    for (const [key, a] of this.#assumed) if (!counted.has(key)) add(a.machine, a.cpu);
    return used;
  }

  get assumedCount(): number {
    return this.#assumed.size;
  }
}
