/**
 * Our runner for structured-merge-diff's table-driven merge tests (SMD's internal/fixture/state.go): a test case
 * is a list of operations (apply, force-apply, update) by named managers in API versions, then the live object
 * and the managed field sets expected afterwards. The tables in ../test-cases are SMD's, ported as data.
 *
 * Objects are YAML written with leading tabs (SMD's FixTabsOrDie strips the first line's tabs from every line).
 * Schemas are SMD's YAML schema form, which our typed Schema loads as it is.
 */
import { parse as parseYaml } from 'yaml';
import type { ManagedFields, VersionedSet } from '../../fieldpath/managed-fields.ts';
import { type Conflict, ConflictsError, conflictsString as conflictsMessage } from '../../fieldpath/managed-fields.ts';
import { makePath, type Path, pathString, pathsEqual } from '../../fieldpath/path.ts';
import type { PathElement } from '../../fieldpath/path-element.ts';
import { FieldSet } from '../../fieldpath/set.ts';
import { jsonEqual } from '../../json-data.ts';
import { extractItems } from '../../typed/remove.ts';
import { Schema, type SchemaDefinition, type TypedSchema, UNTYPED_DEDUCED } from '../../typed/schema.ts';
import { typedOps } from '../typed-ops.ts';
import { type Converter, Updater } from '../updater.ts';

// ---- the shorthands SMD's tables use ----

/** A path: strings are field names, numbers indexes, objects PathElements (SMD's MakePathOrDie). */
export const _P = (...parts: (string | number | PathElement)[]): Path => makePath(...parts);
/** A set of paths (SMD's NewSet); kept as paths so the tables stay plain data. */
export const _NS = (...paths: Path[]): Path[] => paths;
/** A map-list item's key: alternating field names and values (SMD's KeyByFields). */
export function _KBF(...nameValues: unknown[]): PathElement {
  const key: Record<string, unknown> = {};
  for (let i = 0; i < nameValues.length; i += 2) key[nameValues[i] as string] = nameValues[i + 1];
  return { key };
}
/** A set-list item (SMD's value.NewValueInterface). */
export const _V = (value: unknown): PathElement => ({ value });
/** Go's fmt.Sprintf with `%s` only (the versioned tables). */
export function sprintf(format: string, ...args: string[]): string {
  let i = 0;
  return format.replace(/%s/g, () => args[i++] ?? '');
}

// ---- table types ----

/** Where objects get their type: one named type, the type named after the version, or the deduced type. */
export interface ParserSpec {
  schema?: string;
  typeName?: string;
  typeByVersion?: true;
  deduced?: true;
}

export const deducedParser: ParserSpec = { deduced: true };

export interface ObjectOperation {
  op: 'apply' | 'forceApply' | 'update' | 'extractApply';
  manager: string;
  apiVersion?: string;
  object: string;
  /** For apply: the conflicts expected (an empty list: none); absent, any conflict fails the case. */
  conflicts?: { manager: string; path: Path }[];
}

/** SMD's ChangeParser: the schema changes under the live object (a CRD update); the live object must still fit. */
export interface ChangeParserOperation {
  op: 'changeParser';
  parser: ParserSpec;
}

export type Operation = ObjectOperation | ChangeParserOperation;

export interface ExpectedVersionedSet {
  set: Path[];
  apiVersion: string;
  applied: boolean;
}

export interface TestCase {
  ops: Operation[];
  object?: string;
  apiVersion?: string;
  managed?: Record<string, ExpectedVersionedSet>;
  returnInputOnNoop?: boolean;
  ignoreFilter?: Record<string, { exclude: Path[] }>;
  ignoredFields?: Record<string, Path[]>;
}

export type ConverterName = 'repeatingConverter' | 'renamingConverter' | 'reliantFieldsConverter';

export interface Table {
  parser: ParserSpec;
  converter?: ConverterName;
  /** SMD's "…Errors" tables: the case passes when some step fails. */
  expectError?: boolean;
  cases: Record<string, TestCase>;
}

// ---- parsing ----

/** SMD's FixTabsOrDie: drops a leading empty line and the first line's leading tabs from every line. */
export function fixTabs(text: string): string {
  let lines = text.split('\n');
  if (lines.length > 1 && lines[0] === '') lines = lines.slice(1);
  const prefix = /^\t*/.exec(lines[0] ?? '')?.[0] ?? '';
  return lines
    .map((line, i) => {
      if (i === lines.length - 1 && line.length <= prefix.length && line.trim() === '') return '';
      if (!line.startsWith(prefix)) throw new Error(`line ${i} doesn't start with expected number (${prefix.length}) of tabs: ${line}`);
      return line.slice(prefix.length);
    })
    .join('\n');
}

const schemaCache = new Map<string, Schema>();

/** The typed schema of `version` under `parser`. */
export function typeOf(parser: ParserSpec, version: string): TypedSchema {
  if (parser.deduced) return { schema: deducedSchema(), typeRef: { namedType: UNTYPED_DEDUCED } };
  const text = parser.schema ?? '';
  let schema = schemaCache.get(text);
  if (!schema) {
    schema = new Schema(parseYaml(text) as SchemaDefinition);
    schemaCache.set(text, schema);
  }
  return { schema, typeRef: { namedType: parser.typeByVersion ? version : parser.typeName } };
}

let deduced: Schema | undefined;
function deducedSchema(): Schema {
  deduced ??= Schema.deduced();
  return deduced;
}

/** Parses a YAML object of the tables and validates it against its type (duplicates refused unless allowed). */
export function parseObject(parser: ParserSpec, version: string, yaml: string, allowDuplicates: boolean): unknown {
  const value = (parseYaml(fixTabs(yaml)) ?? null) as unknown;
  typedOps.validate(value, typeOf(parser, version), allowDuplicates);
  return value;
}

// ---- converters (SMD's test converters, over plain values) ----

/** Marks a version a converter does not know (SMD's IsMissingVersionError). */
export class MissingVersionError extends Error {}

/** SMD's dummyConverter: values unchanged, but there must be a version. */
export const dummyConverter: Converter = {
  convert(value, _from, to) {
    if (to === '') throw new Error(`cannot convert to invalid version: ""`);
    return value;
  },
  isMissingVersionError: () => false,
};

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * SMD's repeatingConverter: version `vN` spells every key below the first top-level field as its first letter
 * repeated N times (the Go version rewrites YAML lines; the effect on these maps-of-maps is this).
 */
export function repeatingConverter(parser: ParserSpec): Converter {
  const n = (version: string): number => {
    const m = /^v(\d+)$/.exec(version);
    if (!m) throw new MissingVersionError('cannot convert to invalid version');
    return Number(m[1]);
  };
  const rename = (v: unknown, times: number): unknown => {
    if (!isMap(v) || Object.keys(v).length === 0) return null;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[(k[0] ?? '').repeat(times)] = rename(v[k], times);
    return out;
  };
  return {
    convert(value, _from, to) {
      const times = n(to);
      let out: unknown = value;
      if (isMap(value)) {
        const first = Object.keys(value).sort()[0];
        if (first !== undefined) {
          const inner = value[first];
          out = { [first]: isMap(inner) && Object.keys(inner).length > 0 ? rename(inner, times) : inner };
        }
      }
      typedOps.validate(out, typeOf(parser, to), false);
      return out;
    },
    isMissingVersionError: (err) => err instanceof MissingVersionError,
  };
}

/** SMD's renamingConverter: a key ending in the source version's name ends in the target's instead. */
export const renamingConverter: Converter = {
  convert(value, from, to) {
    const walk = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(walk);
      if (!isMap(v)) return v;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k.endsWith(from) ? k.slice(0, k.length - from.length) + to : k] = walk(x);
      return out;
    };
    return walk(value);
  },
  isMissingVersionError: (err) => err instanceof MissingVersionError,
};

/** SMD's reliantFieldsConverter: v2's required_field_bar is v1's field_foo_rely_on_bar; v1 cannot exist without it. */
export const reliantFieldsConverter: Converter = {
  convert(value, from, to) {
    if (from === to) return value;
    const swap = (a: string, b: string): unknown => {
      if (!isMap(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(value)) out[k === a ? b : k] = x;
      return out;
    };
    if (to === 'v1') {
      if (!isMap(value) || !('required_field_bar' in value)) throw new Error('missing requried field bar');
      return swap('required_field_bar', 'field_foo_rely_on_bar');
    }
    if (to === 'v2') return swap('field_foo_rely_on_bar', 'required_field_bar');
    throw new MissingVersionError('cannot convert to invalid version');
  },
  isMissingVersionError: (err) => err instanceof MissingVersionError,
};

function converterFor(table: Table): Converter {
  switch (table.converter) {
    case 'repeatingConverter':
      return repeatingConverter(table.parser);
    case 'renamingConverter':
      return renamingConverter;
    case 'reliantFieldsConverter':
      return reliantFieldsConverter;
    default:
      return dummyConverter;
  }
}

// ---- the state machine ----

/** The live object (with the version it is in) and its managers, as operations leave them. */
export class State {
  live: unknown = null;
  liveVersion: string | undefined;
  managers: ManagedFields = new Map();

  /** Mutable: a changeParser operation swaps it (the Updater's typeFor reads it). */
  parser: ParserSpec;
  readonly updater: Updater;
  readonly converter: Converter;

  constructor(parser: ParserSpec, updater: Updater, converter: Converter) {
    this.parser = parser;
    this.updater = updater;
    this.converter = converter;
  }

  private liveAt(version: string): unknown {
    if (this.liveVersion === undefined) this.liveVersion = version;
    return this.converter.convert(this.live, this.liveVersion, version);
  }

  update(yaml: string, version: string, manager: string): void {
    const next = parseObject(this.parser, version, yaml, true);
    this.updateObject(next, version, manager);
  }

  updateObject(next: unknown, version: string, manager: string): void {
    const live = this.liveAt(version);
    const r = this.updater.update(live, next, version, this.managers, manager);
    this.live = r.object;
    this.liveVersion = version;
    this.managers = r.managers;
  }

  apply(yaml: string, version: string, manager: string, force: boolean): void {
    const config = parseObject(this.parser, version, yaml, false);
    this.applyObject(config, version, manager, force);
  }

  applyObject(config: unknown, version: string, manager: string, force: boolean): void {
    const live = this.liveAt(version);
    const r = this.updater.apply(live, config, version, this.managers, manager, force);
    this.managers = r.managers;
    this.live = r.object === undefined ? live : r.object;
    this.liveVersion = version;
  }

  /**
   * SMD's ExtractApply: what `manager` owns of the live object (its set's leaves), with `yaml` merged onto it,
   * force-applied — the client-side extract / modify / apply loop.
   */
  extractApply(yaml: string, version: string, manager: string): void {
    const config = parseObject(this.parser, version, yaml, false);
    if (this.liveVersion === undefined) {
      this.applyObject(config, version, manager, true);
      return;
    }
    const type = typeOf(this.parser, version);
    const current = this.liveAt(version);
    const mine = this.managers.get(manager);
    if (mine && mine.apiVersion !== version) {
      throw new Error(
        `existing managed fieldpath set APIVersion (${mine.apiVersion}) differs from desired (${version}), unable to extract`,
      );
    }
    const extracted = extractItems(type, current, mine ? mine.set.leaves() : FieldSet.empty());
    this.applyObject(typedOps.merge(extracted, config, type), version, manager, true);
  }

  /** Empty when the live object (in `version`) equals `yaml`; else both, for the failure message. */
  compareLive(yaml: string, version: string): string {
    const expected = parseObject(this.parser, version, yaml, true);
    const live = this.liveAt(version);
    return jsonEqual(expected, live) ? '' : `expected:\n${JSON.stringify(expected)}\nlive:\n${JSON.stringify(live)}`;
  }
}

function conflictsMatch(expected: readonly Conflict[], got: readonly Conflict[]): boolean {
  const has = (list: readonly Conflict[], c: Conflict) => list.some((x) => x.manager === c.manager && pathsEqual(x.path, c.path));
  return expected.every((c) => has(got, c)) && got.every((c) => has(expected, c));
}

function runOperation(state: State, op: Operation): void {
  if (op.op === 'changeParser') {
    state.parser = op.parser;
    if (state.liveVersion !== undefined) typedOps.validate(state.live, typeOf(op.parser, state.liveVersion), true);
    return;
  }
  const version = op.apiVersion ?? '';
  switch (op.op) {
    case 'update':
      state.update(op.object, version, op.manager);
      return;
    case 'forceApply':
      state.apply(op.object, version, op.manager, true);
      return;
    case 'apply': {
      let got: readonly Conflict[] = [];
      try {
        state.apply(op.object, version, op.manager, false);
      } catch (err) {
        if (!(err instanceof ConflictsError) || op.conflicts === undefined) throw err;
        got = err.conflicts;
      }
      if (op.conflicts !== undefined && !conflictsMatch(op.conflicts, got)) {
        throw new Error(`Expected conflicts:\n${conflictsMessage(op.conflicts)}\ngot\n${conflictsMessage(got)}`);
      }
      return;
    }
    case 'extractApply':
      state.extractApply(op.object, version, op.manager);
      return;
  }
}

function toManagedFields(expected: Record<string, ExpectedVersionedSet>): ManagedFields {
  const out = new Map<string, VersionedSet>();
  for (const [name, vs] of Object.entries(expected)) {
    out.set(name, { set: FieldSet.fromPaths(vs.set), apiVersion: vs.apiVersion, applied: vs.applied });
  }
  return out;
}

/**
 * SMD's ManagedFields.Difference(got, expected): managers whose set or version differ. As in SMD, a manager only
 * in `expected` is not reported.
 */
export function managersDifference(got: ManagedFields, expected: ManagedFields): string[] {
  const diff: string[] = [];
  for (const [name, left] of got) {
    const right = expected.get(name);
    if (!right) {
      if (!left.set.isEmpty()) diff.push(`${name}: unexpected\n${left.set.toString()}`);
      continue;
    }
    if (left.apiVersion !== right.apiVersion) {
      diff.push(`${name}: version ${left.apiVersion}, expected ${right.apiVersion}`);
      continue;
    }
    const sym = left.set.difference(right.set).union(right.set.difference(left.set));
    if (!sym.isEmpty()) diff.push(`${name}: got\n${left.set.toString()}\nexpected\n${right.set.toString()}`);
  }
  return diff;
}

/** Runs one case of `table`; throws with SMD's kind of message when it fails. */
export function runCase(table: Table, tc: TestCase): void {
  const ignored = new Map<string, FieldSet>();
  for (const [v, f] of Object.entries(tc.ignoreFilter ?? {})) ignored.set(v, FieldSet.fromPaths(f.exclude));
  for (const [v, paths] of Object.entries(tc.ignoredFields ?? {})) ignored.set(v, FieldSet.fromPaths(paths));
  const converter = converterFor(table);
  let state: State | undefined;
  const updater = new Updater({
    typeFor: (version) => typeOf(state?.parser ?? table.parser, version),
    converter,
    ignored,
    returnInputOnNoop: tc.returnInputOnNoop ?? false,
  });
  const st = new State(table.parser, updater, converter);
  state = st;
  tc.ops.forEach((op, i) => {
    try {
      runOperation(st, op);
    } catch (err) {
      throw new Error(`failed operation ${i}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  });
  if (tc.object !== undefined && tc.object !== '') {
    const diff = st.compareLive(tc.object, tc.apiVersion ?? '');
    if (diff !== '') throw new Error(`expected live and config to be the same:\n${diff}`);
  }
  if (tc.managed) {
    const diff = managersDifference(st.managers, toManagedFields(tc.managed));
    if (diff.length > 0) throw new Error(`managers differ:\n${diff.join('\n')}`);
  }
  for (const [name, vs] of st.managers) {
    if (vs.set.isEmpty()) throw new Error(`expected Managers to have no empty sets, but found one managed by ${name}`);
  }
}

/** A path's text, for test names and messages. */
export const showPath = (p: Path): string => pathString(p);
