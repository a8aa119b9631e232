import type { Machine } from './scheduler-types.ts';

/** kube's MaxNodeScore: every score plugin answers in 0..100. */
export const MAX_SCORE = 100;

/** Why a Machine was filtered out, in the words kube's scheduler uses for Nodes. */
export type FilterReason = 'unschedulable' | 'insufficient cpu';

export interface Placement {
  machine: string;
  score: number;
}

export interface NoPlacement {
  /** How many Machines failed for each reason (kube: "0/3 nodes are available: 1 node(s) were unschedulable, …"). */
  reasons: Partial<Record<FilterReason, number>>;
  message: string;
}

/**
 * The filter step (kube's NodeUnschedulable and NodeResourcesFit plugins): a Machine takes the Part unless it is
 * cordoned or its free cpu (capacity minus what Parts bound or assumed on it request) is less than the Part's.
 */
export function filterMachine(machine: Machine, requested: number, used: number): FilterReason | undefined {
  if (machine.spec?.unschedulable) return 'unschedulable';
  if ((machine.spec?.cpu ?? 0) - used < requested) return 'insufficient cpu';
  return undefined;
}

/**
 * The score step, kube's NodeResourcesFit LeastAllocated strategy: the share of the Machine's cpu left free after
 * the Part is placed, 0..100, so Parts spread to the emptiest Machines. A Machine of no cpu scores 0.
 */
export function leastAllocatedScore(machine: Machine, requested: number, used: number): number {
  const capacity = machine.spec?.cpu ?? 0;
  if (capacity <= 0) return 0;
  return Math.floor(((capacity - used - requested) * MAX_SCORE) / capacity);
}

/**
 * One scheduling decision: filter, score, pick the best; ties go to the Machine whose name sorts first, so the
 * outcome does not depend on the informer's order (kube picks among ties at random; a test wants determinism).
 */
export function pickMachine(machines: readonly Machine[], requested: number, usedOn: (machine: string) => number): Placement | NoPlacement {
  const reasons: Partial<Record<FilterReason, number>> = {};
  let best: Placement | undefined;
  for (const machine of machines) {
    const name = machine.metadata?.name ?? '';
    const used = usedOn(name);
    const reason = filterMachine(machine, requested, used);
    if (reason) {
      reasons[reason] = (reasons[reason] ?? 0) + 1;
      continue;
    }
    const score = leastAllocatedScore(machine, requested, used);
    if (!best || score > best.score || (score === best.score && name < best.machine)) best = { machine: name, score };
  }
  if (best) return best;
  const why = Object.entries(reasons)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([reason, n]) => `${n} ${reason}`);
  return { reasons, message: `0/${machines.length} machines are available${why.length ? `: ${why.join(', ')}` : ''}` };
}

export const isPlacement = (p: Placement | NoPlacement): p is Placement => 'machine' in p;
