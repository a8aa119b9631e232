/**
 * Who owns what: SMD's fieldpath.ManagedFields (manager id → the set it owns, in which API version, by apply or
 * update) and merge's Conflict / Conflicts with the texts SMD prints for them.
 */
import { goQuote } from '../labels.ts';
import { type Path, pathString } from './path.ts';
import type { FieldSet } from './set.ts';

/** The fields one manager owns, the API version the set is expressed in, and whether it was an apply. */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

/** Manager id (registry's JSON of manager, operation, apiVersion, subresource) → what it owns. */
export type ManagedFields = Map<string, VersionedSet>;

/** ManagedFields.Equals: the same managers, each with the same version, applied flag and set. */
export function managedFieldsEqual(a: ReadonlyMap<string, VersionedSet>, b: ReadonlyMap<string, VersionedSet>): boolean {
  if (a.size !== b.size) return false;
  for (const [manager, l] of a) {
    const r = b.get(manager);
    if (r === undefined || l.apiVersion !== r.apiVersion || l.applied !== r.applied || !l.set.equals(r.set)) return false;
  }
  return true;
}

/**
 * ManagedFields.Difference: per manager, the symmetric difference of its sets; a manager whose version differs
 * gets rhs's entry whole; managers left with nothing are dropped.
 */
export function managedFieldsDifference(lhs: ReadonlyMap<string, VersionedSet>, rhs: ReadonlyMap<string, VersionedSet>): ManagedFields {
  const diff: ManagedFields = new Map();
  for (const [manager, left] of lhs) {
    const right = rhs.get(manager);
    if (right === undefined) {
      if (!left.set.isEmpty()) diff.set(manager, left);
      continue;
    }
    if (left.apiVersion !== right.apiVersion) {
      diff.set(manager, right);
      continue;
    }
    const set = left.set.difference(right.set).union(right.set.difference(left.set));
    if (!set.isEmpty()) diff.set(manager, { set, apiVersion: right.apiVersion, applied: false });
  }
  for (const [manager, right] of rhs) {
    if (!lhs.has(manager) && !right.set.isEmpty()) diff.set(manager, right);
  }
  return diff;
}

/** A field another manager owns: SMD's merge.Conflict. */
export interface Conflict {
  readonly manager: string;
  readonly path: Path;
}

/** Conflict.Error: `conflict with "<manager>": .spec.replicas`. */
export function conflictString(c: Conflict): string {
  return `conflict with ${goQuote(c.manager)}: ${pathString(c.path)}`;
}

/**
 * Conflicts.Error: one conflict as conflictString; several grouped by manager (managers sorted, each manager's
 * paths in the order given): `conflicts with "m":\n- .a\n- .b`.
 */
export function conflictsString(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) return conflictString(conflicts[0] as Conflict);
  const byManager = new Map<string, Path[]>();
  for (const c of conflicts) {
    const paths = byManager.get(c.manager);
    if (paths) paths.push(c.path);
    else byManager.set(c.manager, [c.path]);
  }
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${goQuote(manager)}:`);
    for (const p of byManager.get(manager) as Path[]) lines.push(`- ${pathString(p)}`);
  }
  return lines.join('\n');
}

/** ConflictsFromManagers: one conflict per member of each manager's set. */
export function conflictsFromManagers(sets: ReadonlyMap<string, VersionedSet>): Conflict[] {
  const out: Conflict[] = [];
  for (const [manager, v] of sets) v.set.forEachPath((p) => out.push({ manager, path: p.slice() }));
  return out;
}

/** An apply that other managers' fields stand in the way of; `conflicts` says which (SMD's merge.Conflicts as an error). */
export class ConflictsError extends Error {
  readonly conflicts: readonly Conflict[];
  constructor(conflicts: readonly Conflict[]) {
    super(conflictsString(conflicts));
    this.name = 'ConflictsError';
    this.conflicts = conflicts;
  }
}
