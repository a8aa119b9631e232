// SMD's merge/conflict_test.go and obsolete_versions_test.go (and the typename test of multiple_appliers_test.go),
// which drive the Updater or the conflicts text directly instead of through tables.
import { describe, expect, it } from 'vitest';
import {
  ConflictsError,
  conflictsFromManagers,
  conflictsString,
  type ManagedFields,
  managedFieldsEqual,
} from '../fieldpath/managed-fields.ts';
import { pathString } from '../fieldpath/path.ts';
import { FieldSet } from '../fieldpath/set.ts';
import { _KBF, _P, deducedParser, MissingVersionError, managersDifference, type ParserSpec, State, typeOf } from './test-support/state.ts';
import { type Converter, Updater } from './updater.ts';

const vs = (paths: ReturnType<typeof _P>[], apiVersion = 'v1', applied = false) => ({
  set: FieldSet.fromPaths(paths),
  apiVersion,
  applied,
});

describe('conflicts (conflict_test.go)', () => {
  it('groups conflicts by sorted manager, paths in set order', () => {
    const managers: ManagedFields = new Map([
      ['Bob', vs([_P('key'), _P('list', _KBF('key', 'a', 'id', 2), 'id')])],
      ['Alice', vs([_P('value'), _P('list', _KBF('key', 'a', 'id', 2), 'key')])],
    ]);
    expect(conflictsString(conflictsFromManagers(managers))).toBe(
      'conflicts with "Alice":\n- .value\n- .list[id=2,key="a"].key\nconflicts with "Bob":\n- .key\n- .list[id=2,key="a"].id',
    );
  });

  it('the set of all conflicts (ToSet)', () => {
    const managers: ManagedFields = new Map([
      ['Bob', vs([_P('key'), _P('list', _KBF('key', 'a', 'id', 2), 'id')])],
      ['Alice', vs([_P('value'), _P('list', _KBF('key', 'a', 'id', 2), 'key')])],
    ]);
    const got = FieldSet.fromPaths(conflictsFromManagers(managers).map((c) => c.path));
    const want = FieldSet.fromPaths([
      _P('key'),
      _P('value'),
      _P('list', _KBF('key', 'a', 'id', 2), 'id'),
      _P('list', _KBF('key', 'a', 'id', 2), 'key'),
    ]);
    expect(got.equals(want)).toBe(true);
  });

  it('one manager, nested paths', () => {
    const managers: ManagedFields = new Map([
      [
        'Bob',
        vs([_P('obj', 'template', 'obj', 'list', _KBF('name', 'a'), 'id'), _P('obj', 'template', 'obj', 'list', _KBF('name', 'a'), 'key')]),
      ],
    ]);
    expect(conflictsString(conflictsFromManagers(managers))).toBe(
      'conflicts with "Bob":\n- .obj.template.obj.list[name="a"].id\n- .obj.template.obj.list[name="a"].key',
    );
  });
});

/** SMD's specificVersionConverter: values unchanged, but only the listed versions exist. */
function specificVersionConverter(accepted: string[]): Converter & { accepted: string[] } {
  return {
    accepted,
    convert(value, _from, to) {
      if (!this.accepted.includes(to)) throw new MissingVersionError(`Unknown version: ${to}`);
      return value;
    },
    isMissingVersionError: (err) => err instanceof Error,
  };
}

describe('obsolete versions (obsolete_versions_test.go)', () => {
  it('drops the managers of versions that no longer exist', () => {
    const converter = specificVersionConverter(['v1', 'v2']);
    const updater = new Updater({ typeFor: (v) => typeOf(deducedParser, v), converter });
    const state = new State(deducedParser, updater, converter);
    state.update('{"v1": 0}', 'v1', 'v1');
    state.update('{"v1": 0, "v2": 0}', 'v2', 'v2');
    converter.accepted = ['v2', 'v3'];
    state.update('{"v1": 0, "v2": 0, "v3": 0}', 'v3', 'v3');
    const want: ManagedFields = new Map([
      ['v2', vs([_P('v2')], 'v2')],
      ['v3', vs([_P('v3')], 'v3')],
    ]);
    expect(managersDifference(state.managers, want)).toEqual([]);
  });

  it('an apply does not prune what was applied in a version that no longer exists', () => {
    const parser: ParserSpec = {
      schema: `types:
- name: sets
  map:
    fields:
    - name: list
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative`,
      typeName: 'sets',
    };
    const converter = specificVersionConverter(['v1']);
    const updater = new Updater({ typeFor: (v) => typeOf(parser, v), converter });
    const state = new State(parser, updater, converter);
    state.apply('{"list": ["a", "b", "c", "d"]}', 'v1', 'apply', false);
    converter.accepted = ['v2'];
    state.apply('{"list": ["a"]}', 'v2', 'apply', false);
    expect(state.compareLive('{"list": ["a", "b", "c", "d"]}', 'v2')).toBe('');
  });
});

describe('versions whose type names differ (TestVersionDoesntMatchTypename)', () => {
  const parser: ParserSpec = {
    schema: `types:
- name: TypeV1
  map:
    fields:
      - name: field_foo_rely_on_bar
        type:
          scalar: string
      - name: common_field
        type:
          scalar: string
- name: TypeV2
  map:
    fields:
      - name: required_field_bar
        type:
          scalar: string
      - name: common_field
        type:
          scalar: string
`,
    typeName: 'TypeV1',
  };
  const typeName: Record<string, string> = { v1: 'TypeV1', v2: 'TypeV2' };
  const typeFor = (v: string) => ({ ...typeOf(parser, v), typeRef: { namedType: typeName[v] } });
  const rename = (value: unknown, a: string, b: string): unknown =>
    Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, x]) => [k === a ? b : k, x]));
  const converter: Converter = {
    convert(value, from, to) {
      if (from === to) return value;
      if (to === 'v1') {
        if (!('required_field_bar' in (value as object))) throw new Error('missing requried field bar');
        return rename(value, 'required_field_bar', 'field_foo_rely_on_bar');
      }
      if (to === 'v2') return rename(value, 'field_foo_rely_on_bar', 'required_field_bar');
      throw new MissingVersionError('cannot convert to invalid version');
    },
    isMissingVersionError: (err) => err instanceof MissingVersionError,
  };

  it('apply in v2, in v1, in v2 again', () => {
    const updater = new Updater({ typeFor, converter });
    let managers: ManagedFields = new Map();
    let live: unknown = {};
    let r = updater.apply(live, { required_field_bar: 'a' }, 'v2', managers, 'v2_applier', false);
    live = converter.convert(r.object ?? live, 'v2', 'v1');
    managers = r.managers;
    r = updater.apply(live, { common_field: 'b' }, 'v1', managers, 'v1_applier', false);
    live = converter.convert(r.object ?? live, 'v1', 'v2');
    managers = r.managers;
    r = updater.apply(live, { required_field_bar: 'b' }, 'v2', managers, 'v2_applier', false);
    expect(r.object).toEqual({ required_field_bar: 'b', common_field: 'b' });
    const want: ManagedFields = new Map([
      ['v2_applier', vs([_P('required_field_bar')], 'v2', true)],
      ['v1_applier', vs([_P('common_field')], 'v1', true)],
    ]);
    expect(managedFieldsEqual(r.managers, want)).toBe(true);
  });
});

describe('Updater API', () => {
  const typeFor = (v: string) => typeOf(deducedParser, v);

  it('apply answers object undefined when nothing changes, unless returnInputOnNoop', () => {
    const live = { a: 1, b: { c: 'x' } };
    const first = new Updater({ typeFor }).apply(null, live, 'v1', new Map(), 'm', false);
    expect(first.object).toEqual(live);
    const again = new Updater({ typeFor }).apply(live, { a: 1 }, 'v1', first.managers, 'm', false);
    expect(again.object).toEqual({ a: 1 });
    const same = new Updater({ typeFor }).apply(live, live, 'v1', first.managers, 'm', false);
    expect(same.object).toBeUndefined();
    const always = new Updater({ typeFor, returnInputOnNoop: true }).apply(live, live, 'v1', first.managers, 'm', false);
    expect(always.object).toEqual(live);
  });

  it('a conflict throws ConflictsError with the conflicts and SMD’s text; the managers given are not changed', () => {
    const u = new Updater({ typeFor });
    const one = u.apply(null, { a: 1, b: 2 }, 'v1', new Map(), 'one', false);
    const before = new Map(one.managers);
    let caught: unknown;
    try {
      u.apply({ a: 1, b: 2 }, { a: 3, b: 4 }, 'v1', one.managers, 'two', false);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConflictsError);
    const err = caught as ConflictsError;
    expect(err.conflicts.map((c) => [c.manager, pathString(c.path)])).toEqual([
      ['one', '.a'],
      ['one', '.b'],
    ]);
    expect(err.message).toBe('conflicts with "one":\n- .a\n- .b');
    expect(managedFieldsEqual(one.managers, before)).toBe(true);
    const forced = u.apply({ a: 1, b: 2 }, { a: 3 }, 'v1', one.managers, 'two', true);
    expect(forced.object).toEqual({ a: 3, b: 2 });
    expect(forced.managers.get('one')?.set.paths().map(pathString)).toEqual(['.b']);
    expect(forced.managers.get('two')?.set.paths().map(pathString)).toEqual(['.a']);
    expect(managedFieldsEqual(one.managers, before)).toBe(true);
  });

  it('ignored fields (a plain record per version) are never owned nor conflict', () => {
    const u = new Updater({ typeFor, ignored: { v1: FieldSet.fromPaths([_P('status')]) } });
    const created = u.update(null, { spec: { x: 1 }, status: { y: 1 } }, 'v1', new Map(), 'ctrl');
    // As kube records a create: the new struct itself too (FieldsV1 `"f:spec": {".": {}, "f:x": {}}`).
    expect(created.managers.get('ctrl')?.set.paths().map(pathString)).toEqual(['.spec', '.spec.x']);
    const r = u.apply({ spec: { x: 1 }, status: { y: 1 } }, { status: { y: 2 } }, 'v1', created.managers, 'applier', false);
    expect(r.managers.has('applier')).toBe(false);
  });
});

describe('an apply configuration is typed before it is merged (AsTyped in kube typeconverter)', () => {
  const parser: ParserSpec = {
    schema: `types:
- name: obj
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: ports
      type:
        list:
          elementType:
            map:
              fields:
              - name: port
                type:
                  scalar: numeric
          elementRelationship: associative
          keys: [port]`,
    typeName: 'obj',
  };
  const updater = new Updater({ typeFor: (v) => typeOf(parser, v) });
  const apply = (config: unknown) => () => updater.apply(null, config, 'v1', new Map(), 'm', false);

  it('an undeclared field is "field not declared in schema", not a schema error of the merge', () => {
    expect(apply({ name: 'a', foo: 1 })).toThrow(/^\.foo: field not declared in schema$/);
    expect(apply({ ports: [{ port: 80, proto: 'TCP' }] })).toThrow(/^\.ports\[port=80\]\.proto: field not declared in schema$/);
  });

  it('a repeated key and a scalar of the wrong kind are errors too', () => {
    expect(apply({ ports: [{ port: 80 }, { port: 80 }] })).toThrow(/^\.ports: duplicate entries for key \[port=80\]$/);
    expect(apply({ name: 1 })).toThrow(/^\.name: expected string, got &value\.valueUnstructured\{Value:1\}$/);
  });
});
