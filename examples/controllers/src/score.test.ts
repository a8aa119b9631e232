import { describe, expect, it } from 'vitest';
import type { Machine } from './scheduler-types.ts';
import { filterMachine, isPlacement, leastAllocatedScore, pickMachine } from './score.ts';

const machine = (name: string, cpu: number, unschedulable = false): Machine => ({ metadata: { name }, spec: { cpu, unschedulable } });

describe('score', () => {
  it('filters out cordoned Machines and those with less free cpu than the Part asks', () => {
    expect(filterMachine(machine('m', 1000, true), 100, 0)).toBe('unschedulable');
    expect(filterMachine(machine('m', 1000), 300, 800)).toBe('insufficient cpu');
    expect(filterMachine(machine('m', 1000), 200, 800)).toBeUndefined();
    expect(filterMachine(machine('m', 0), 0, 0)).toBeUndefined();
  });

  it('scores the share left free after placing the Part (least allocated), 0..100', () => {
    expect(leastAllocatedScore(machine('m', 1000), 100, 0)).toBe(90);
    expect(leastAllocatedScore(machine('m', 1000), 500, 500)).toBe(0);
    expect(leastAllocatedScore(machine('m', 3000), 1000, 0)).toBe(66);
    expect(leastAllocatedScore(machine('m', 0), 0, 0)).toBe(0);
  });

  it('picks the best score, ties to the first name whatever the order', () => {
    const used = new Map([['busy', 900]]);
    const usedOn = (m: string) => used.get(m) ?? 0;
    const machines = [machine('zeta', 1000), machine('busy', 4000), machine('alpha', 1000), machine('big', 8000, true)];
    expect(pickMachine(machines, 100, usedOn)).toEqual({ machine: 'alpha', score: 90 });
    expect(pickMachine([...machines].reverse(), 100, usedOn)).toEqual({ machine: 'alpha', score: 90 });
    // busy: (4000 - 900 - 1000) / 4000 = 52; alpha, zeta: 0.
    expect(pickMachine(machines, 1000, usedOn)).toEqual({ machine: 'busy', score: 52 });
  });

  it('says why nothing fits, as kube does', () => {
    const none = pickMachine([machine('a', 100), machine('b', 100), machine('c', 9000, true)], 500, () => 0);
    expect(isPlacement(none)).toBe(false);
    expect(none).toEqual({
      reasons: { 'insufficient cpu': 2, unschedulable: 1 },
      message: '0/3 machines are available: 2 insufficient cpu, 1 unschedulable',
    });
    expect(pickMachine([], 1, () => 0)).toMatchObject({ message: '0/0 machines are available' });
  });
});
