/**
 * The Updater of structured-merge-diff (merge/update.go): who owns which field after a write, and the merged
 * object of an apply.
 *
 * - `update(live, next, …)` records an ordinary write (create, update, patch): the writer takes the fields it
 *   added or changed, loses the ones it removed, and every other manager loses what the write changed or removed
 *   (updates never conflict).
 * - `apply(live, config, …)` merges the applied configuration onto the live object, gives the applier exactly
 *   the fields of its configuration, removes the fields it applied last time but no longer applies when nobody
 *   else owns them (prune), and throws a `ConflictsError` when, without `force`, the merge would change a field
 *   another manager owns. With `force` the applier takes such fields over.
 *
 * Values are plain JSON (as JSON.parse returns them) typed by the schema of their API version; inputs are never
 * mutated (the `managers` map included): results are new. Managers whose API version no longer converts
 * (`Converter.isMissingVersionError`) are dropped, as SMD drops them.
 *
 * Before each write the recorded sets are reconciled with the schema (reconcile-schema.ts), as SMD does: a CRD
 * update can turn a granular struct, map or list atomic under stored objects.
 */

import type { ManagedFields, VersionedSet } from '../fieldpath/managed-fields.ts';
import { type Conflict, ConflictsError, conflictsFromManagers } from '../fieldpath/managed-fields.ts';
import { FieldSet } from '../fieldpath/set.ts';
import { jsonEqual } from '../json-data.ts';
import { excludeFields, isSameComparison } from '../typed/compare.ts';
import { reconcileFieldSetWithSchema } from './reconcile-schema.ts';
import { type Comparison, type TypedVersion, typedOps } from './typed-ops.ts';

/**
 * Converts values between the API versions of one kind. `from` is the version `value` is in. Throw an error for
 * which `isMissingVersionError` answers true when `to` (or `from`) is no longer served.
 */
export interface Converter {
  convert(value: unknown, from: string, to: string): unknown;
  isMissingVersionError(err: unknown): boolean;
}

/** The converter of a kind served in one version, or whose versions share one shape: values pass unchanged. */
export const identityConverter: Converter = {
  convert: (value) => value,
  isMissingVersionError: () => false,
};

export interface UpdaterOptions {
  /** The schema (and root type) of each API version. */
  typeFor(version: string): TypedVersion;
  converter?: Converter;
  /**
   * Fields nobody may own, per API version (kube passes the strategy's reset fields: `status` on the main
   * resource, everything but status on `/status`). Removed recursively from every compared and recorded set, as
   * SMD's exclude-set filter (`IgnoredFields` / `NewExcludeFilterSetMap`).
   */
  ignored?: ReadonlyMap<string, FieldSet> | Readonly<Record<string, FieldSet>>;
  /**
   * When false (SMD's default), `apply` answers `object: undefined` when the merged object equals the live one,
   * so the caller can skip the write; when true it always returns the merged object.
   */
  returnInputOnNoop?: boolean;
}

export interface UpdateResult {
  object: unknown;
  managers: ManagedFields;
}

export interface ApplyResult {
  /** The merged object; undefined when it equals `live` (unless `returnInputOnNoop`). */
  object: unknown;
  managers: ManagedFields;
}

/** A write's comparison in one version, and the fields it added or modified there. */
interface Changes {
  compare: Comparison;
  changed: FieldSet;
}

export class Updater {
  private readonly typeFor: (version: string) => TypedVersion;
  private readonly converter: Converter;
  private readonly ignored: ReadonlyMap<string, FieldSet>;
  private readonly returnInputOnNoop: boolean;

  constructor(options: UpdaterOptions) {
    this.typeFor = options.typeFor;
    this.converter = options.converter ?? identityConverter;
    const ig = options.ignored;
    this.ignored = ig === undefined ? new Map() : ig instanceof Map ? ig : new Map(Object.entries(ig));
    this.returnInputOnNoop = options.returnInputOnNoop ?? false;
  }

  /**
   * Records a create, update or patch by `manager`: `live` is the stored object (null on create), `next` the
   * object about to be stored, both in `version`. `joins` names the manager whose entry the writer's fields join
   * afterwards (kube's field manager records a write under a manager of its own, then unites it with the writer's
   * entry): that manager, in `version`, keeps the fields the write changed instead of losing them to the writer and
   * getting them back; it still loses the ones the write removed. The sets that result are the same.
   */
  update(live: unknown, next: unknown, version: string, managers: ManagedFields, manager: string, joins?: string): UpdateResult {
    const current = this.reconcile(live, version, managers);
    const { managers: after, compare } = this.updateOwnership(live, next, version, current, manager, true, joins);
    const previous = after.get(manager)?.set ?? FieldSet.empty();
    const set = this.filter(version, previous.difference(compare.removed).union(compare.modified).union(compare.added));
    if (set.isEmpty()) after.delete(manager);
    else after.set(manager, { set, apiVersion: version, applied: false });
    return { object: next, managers: after };
  }

  /**
   * Applies `config` (in `version`) by `manager` to `live`: throws ConflictsError without `force` when another
   * manager owns a field the apply changes, and ValidationErrors when `config` is not a valid value of its type.
   */
  apply(live: unknown, config: unknown, version: string, managers: ManagedFields, manager: string, force: boolean): ApplyResult {
    const type = this.typeFor(version);
    // The configuration is typed as kube's typeconverter types it (SMD's AsTyped validates): an undeclared field,
    // a scalar of the wrong kind or a repeated list key is an error before anything is merged.
    typedOps.validate(config, type, false);
    const current = this.reconcile(live, version, managers);
    let merged = typedOps.merge(live, config, type);
    const lastSet = current.get(manager);
    const set = this.filter(version, typedOps.toFieldSet(config, type));
    current.set(manager, { set, apiVersion: version, applied: true });
    merged = this.prune(merged, version, current, manager, lastSet);
    const { managers: after, compare } = this.updateOwnership(live, merged, version, current, manager, force);
    // A field the typed compare saw added, modified or removed already tells the values apart: no deep walk then.
    const noop = !this.returnInputOnNoop && isSameComparison(compare) && jsonEqual(live, merged);
    return { object: noop ? undefined : merged, managers: after };
  }

  /** The ownership changes a write from `live` to `next` makes to every manager but `writer` (SMD's update). */
  private updateOwnership(
    live: unknown,
    next: unknown,
    version: string,
    managers: Map<string, VersionedSet>,
    writer: string,
    force: boolean,
    joins?: string,
  ): { managers: Map<string, VersionedSet>; compare: Comparison } {
    const compare = this.compare(live, next, version);
    const own: Changes = { compare, changed: compare.modified.union(compare.added) };
    // Managers in other versions (rare) see the write converted to theirs; null: the version no longer converts.
    let others: Map<string, Changes | null> | undefined;
    const changesFor = (vs: VersionedSet): Changes | null => {
      if (vs.apiVersion === version) return own;
      others ??= new Map();
      let c = others.get(vs.apiVersion);
      if (c === undefined) {
        c = this.changesIn(vs.apiVersion, live, next, version);
        others.set(vs.apiVersion, c);
      }
      return c;
    };
    if (!force) {
      // Only a write that may not take others' fields needs to know which: an update (always forced) skips this.
      let conflicts: Map<string, VersionedSet> | undefined;
      for (const [name, vs] of managers) {
        const c = name === writer ? null : changesFor(vs);
        const conflict = c ? vs.set.intersection(c.changed) : FieldSet.empty();
        if (conflict.isEmpty()) continue;
        conflicts ??= new Map();
        conflicts.set(name, { set: conflict, apiVersion: vs.apiVersion, applied: false });
      }
      if (conflicts) throw new ConflictsError(conflictsFromManagers(conflicts));
    }
    for (const [name, vs] of managers) {
      if (name === writer) continue;
      const c = changesFor(vs);
      if (!c) {
        managers.delete(name);
        continue;
      }
      // Every other manager loses what the write changed (SMD takes the conflicting part away: the same fields) — but
      // the one the writer joins, which would get them back — and what it removed; difference answers the set itself
      // when it holds none of them (no allocation).
      const set = (name === joins && c === own ? vs.set : vs.set.difference(c.changed)).difference(c.compare.removed);
      if (set.isEmpty()) managers.delete(name);
      else if (set !== vs.set) managers.set(name, { ...vs, set });
    }
    // No manager is kept with nothing (an applier whose configuration sets no field included).
    if (managers.get(writer)?.set.isEmpty()) managers.delete(writer);
    return { managers, compare };
  }

  /** What a write from `live` to `next` (in `version`) changes as `to` sees it; null when `to` no longer converts. */
  private changesIn(to: string, live: unknown, next: unknown, version: string): Changes | null {
    const both = this.convertBoth(live, next, version, to);
    if (!both) return null;
    const compare = this.compare(both[0], both[1], to);
    return { compare, changed: compare.modified.union(compare.added) };
  }

  /** `a` and `b` converted from `from` to `to`; null when either version is no longer served. */
  private convertBoth(a: unknown, b: unknown, from: string, to: string): [unknown, unknown] | null {
    try {
      return [this.converter.convert(a, from, to), this.converter.convert(b, from, to)];
    } catch (err) {
      if (this.converter.isMissingVersionError(err)) return null;
      throw err;
    }
  }

  /** typed compare of two values of `version`, without the fields nobody may own. */
  private compare(live: unknown, next: unknown, version: string): Comparison {
    return excludeFields(typedOps.compare(live, next, this.typeFor(version)), this.ignored.get(version));
  }

  private filter(version: string, set: FieldSet): FieldSet {
    const ignored = this.ignored.get(version);
    return ignored && !ignored.isEmpty() ? set.recursiveDifference(ignored) : set;
  }

  /**
   * A copy of `managers` ready for a write (SMD's reconcileManagedFieldsWithSchemaChanges): managers whose version
   * no longer converts are dropped, and each set is brought in line with its version's schema (containers that
   * became atomic are owned whole).
   */
  private reconcile(live: unknown, version: string, managers: ManagedFields): Map<string, VersionedSet> {
    const out = new Map<string, VersionedSet>();
    for (const [name, vs] of managers) {
      if (vs.apiVersion !== version) {
        try {
          this.converter.convert(live, version, vs.apiVersion);
        } catch (err) {
          if (this.converter.isMissingVersionError(err)) continue;
          throw err;
        }
      }
      const set = reconcileFieldSetWithSchema(vs.set, this.typeFor(vs.apiVersion));
      out.set(name, set ? { ...vs, set } : vs);
    }
    return out;
  }

  /**
   * Removes what `applier` applied last time (`lastSet`) and no longer applies, unless another manager (or the
   * applier's new configuration) owns it, or it was never the applier's alone to remove (SMD's prune with
   * addBackOwnedItems and addBackDanglingItems).
   */
  private prune(
    merged: unknown,
    version: string,
    managers: Map<string, VersionedSet>,
    applier: string,
    lastSet: VersionedSet | undefined,
  ): unknown {
    if (!lastSet || lastSet.set.isEmpty()) return merged;
    const lastVersion = lastSet.apiVersion;
    // The common re-apply: nothing applied last time is missing from this configuration, so whatever prune
    // removes comes back as owned by the applier itself, and the walks below would return `merged` unchanged.
    const now = managers.get(applier) as VersionedSet;
    if (lastVersion === version && lastSet.set.difference(now.set).isEmpty()) return merged;
    let mergedAt: unknown;
    try {
      mergedAt = this.converter.convert(merged, version, lastVersion);
    } catch (err) {
      if (this.converter.isMissingVersionError(err)) return merged;
      throw err;
    }
    const lastType = this.typeFor(lastVersion);
    const last = typedOps.ensureNamedFieldsAreMembers(lastSet.set, lastType);
    // The walks below ask for the field set of the same merged value more than once.
    const sets = new FieldSetMemo(this.typeFor);
    let pruned = typedOps.removeItems(mergedAt, last, lastType);
    pruned = this.addBackOwnedItems(mergedAt, pruned, lastVersion, managers, sets);
    pruned = this.addBackDanglingItems(mergedAt, pruned, lastVersion, last, sets);
    return this.converter.convert(pruned, lastVersion, version);
  }

  /** Puts back what prune removed but some manager (any version) owns. */
  private addBackOwnedItems(
    merged: unknown,
    pruned: unknown,
    prunedVersion: string,
    managers: Map<string, VersionedSet>,
    sets: FieldSetMemo,
  ): unknown {
    const managedAt = new Map<string, FieldSet>();
    for (const vs of managers.values()) {
      const prev = managedAt.get(vs.apiVersion);
      managedAt.set(vs.apiVersion, prev ? prev.union(vs.set) : vs.set);
    }
    // The pruned version first: fields needed to convert to the other versions come back before converting.
    const order = [...managedAt.keys()].sort((a, b) => (a === prunedVersion ? -1 : b === prunedVersion ? 1 : 0));
    let mergedCur = merged;
    let prunedCur = pruned;
    let at = prunedVersion;
    for (const version of order) {
      const both = this.convertBoth(mergedCur, prunedCur, at, version);
      if (!both) continue;
      const [m, p] = both;
      const type = this.typeFor(version);
      const managed = managedAt.get(version) as FieldSet;
      const mergedSet = sets.of(m, version);
      const prunedSet = sets.of(p, version);
      const keep = prunedSet.union(typedOps.ensureNamedFieldsAreMembers(managed, type));
      mergedCur = m;
      prunedCur = typedOps.removeItems(m, mergedSet.difference(keep), type);
      at = version;
    }
    return at === prunedVersion ? prunedCur : this.converter.convert(prunedCur, at, prunedVersion);
  }

  /**
   * Removes only what the applier owned last time: fields that prune took away but that were not in `lastSet`
   * (unowned, or owned by updaters) stay.
   */
  private addBackDanglingItems(merged: unknown, pruned: unknown, version: string, last: FieldSet, sets: FieldSetMemo): unknown {
    const removed = sets.of(merged, version).difference(sets.of(pruned, version));
    return typedOps.removeItems(merged, removed.intersection(last), this.typeFor(version));
  }
}

/** The field sets (named fields made members) of the values one prune looks at, each computed once. */
class FieldSetMemo {
  private readonly typeFor: (version: string) => TypedVersion;
  private readonly byVersion = new Map<string, Map<unknown, FieldSet>>();

  constructor(typeFor: (version: string) => TypedVersion) {
    this.typeFor = typeFor;
  }

  of(value: unknown, version: string): FieldSet {
    let memo = this.byVersion.get(version);
    if (!memo) {
      memo = new Map();
      this.byVersion.set(version, memo);
    }
    let set = memo.get(value);
    if (!set) {
      const type = this.typeFor(version);
      set = typedOps.ensureNamedFieldsAreMembers(typedOps.toFieldSet(value, type), type);
      memo.set(value, set);
    }
    return set;
  }
}

export type { Conflict };
