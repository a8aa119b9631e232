import { describe, expect, it } from 'vitest';
import { calculateNamesAndConditions, establishingStatusUpdate, namingStatusUpdate } from './naming.ts';
import type { CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionNames } from './types.ts';

// kube's naming_controller_test.go TestSync, case by case.

function names(plural: string, singular: string, kind: string, listKind: string, ...shortNames: string[]): CustomResourceDefinitionNames {
  const n: CustomResourceDefinitionNames = { plural, kind };
  if (singular) n.singular = singular;
  if (listKind) n.listKind = listKind;
  if (shortNames.length) n.shortNames = shortNames;
  return n;
}

class Builder {
  crd: CustomResourceDefinition;
  constructor(name: string) {
    const [plural = '', group = ''] = name.split(/\.(.*)/s);
    this.crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: { group, names: { plural, kind: '' }, scope: 'Namespaced', versions: [] },
    };
  }
  specNames(n: CustomResourceDefinitionNames): this {
    this.crd.spec.names = n;
    return this;
  }
  statusNames(n: CustomResourceDefinitionNames): this {
    this.crd.status = { ...this.crd.status, acceptedNames: n };
    return this;
  }
  condition(c: CustomResourceDefinitionCondition): this {
    this.crd.status = { ...this.crd.status, conditions: [...(this.crd.status?.conditions ?? []), c] };
    return this;
  }
}
const crd = (name: string) => new Builder(name);

const accepted = { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
const notAccepted = { type: 'NamesAccepted', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
const installing = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
const notEstablished = { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
const conflictOf = (reason: string, message: string) => ({ type: 'NamesAccepted', status: 'False', reason, message });

const full = names('alfa', 'delta-singular', 'echo-kind', 'foxtrot-listkind', 'golf-shortname-1', 'hotel-shortname-2');

const cases: {
  name: string;
  in: CustomResourceDefinition;
  existing: CustomResourceDefinition[];
  names: CustomResourceDefinitionNames;
  namesAccepted: object;
  established: object;
}[] = [
  {
    name: 'first resource',
    in: crd('alfa.bravo.com').crd,
    existing: [],
    names: { plural: 'alfa', kind: '' },
    namesAccepted: accepted,
    established: installing,
  },
  {
    name: 'different groups',
    in: crd('alfa.bravo.com').specNames(full).crd,
    existing: [crd('alfa.charlie.com').statusNames(full).crd],
    names: full,
    namesAccepted: accepted,
    established: installing,
  },
  {
    name: 'conflict plural to singular',
    in: crd('alfa.bravo.com').specNames(full).crd,
    existing: [crd('india.bravo.com').statusNames(names('india', 'alfa', '', '')).crd],
    names: names('', 'delta-singular', 'echo-kind', 'foxtrot-listkind', 'golf-shortname-1', 'hotel-shortname-2'),
    namesAccepted: conflictOf('PluralConflict', '"alfa" is already in use'),
    established: notEstablished,
  },
  {
    name: 'conflict singular to shortName',
    in: crd('alfa.bravo.com').specNames(full).crd,
    existing: [crd('india.bravo.com').statusNames(names('india', 'indias', '', '', 'delta-singular')).crd],
    names: names('alfa', '', 'echo-kind', 'foxtrot-listkind', 'golf-shortname-1', 'hotel-shortname-2'),
    namesAccepted: conflictOf('SingularConflict', '"delta-singular" is already in use'),
    established: notEstablished,
  },
  {
    name: 'conflict on shortName to shortName',
    in: crd('alfa.bravo.com').specNames(full).crd,
    existing: [crd('india.bravo.com').statusNames(names('india', 'indias', '', '', 'hotel-shortname-2')).crd],
    names: names('alfa', 'delta-singular', 'echo-kind', 'foxtrot-listkind'),
    namesAccepted: conflictOf('ShortNamesConflict', '"hotel-shortname-2" is already in use'),
    established: notEstablished,
  },
  {
    name: 'conflict on kind to listkind',
    in: crd('alfa.bravo.com').specNames(full).crd,
    existing: [crd('india.bravo.com').statusNames(names('india', 'indias', '', 'echo-kind')).crd],
    names: names('alfa', 'delta-singular', '', 'foxtrot-listkind', 'golf-shortname-1', 'hotel-shortname-2'),
    namesAccepted: conflictOf('KindConflict', '"echo-kind" is already in use'),
    established: notEstablished,
  },
  {
    name: 'conflict on listkind to kind',
    in: crd('alfa.bravo.com').specNames(full).crd,
    existing: [crd('india.bravo.com').statusNames(names('india', 'indias', 'foxtrot-listkind', '')).crd],
    names: names('alfa', 'delta-singular', 'echo-kind', '', 'golf-shortname-1', 'hotel-shortname-2'),
    namesAccepted: conflictOf('ListKindConflict', '"foxtrot-listkind" is already in use'),
    established: notEstablished,
  },
  {
    name: 'no conflict on resource and kind',
    in: crd('alfa.bravo.com').specNames(full).crd,
    existing: [crd('india.bravo.com').statusNames(names('india', 'echo-kind', '', '')).crd],
    names: full,
    namesAccepted: accepted,
    established: installing,
  },
  {
    name: 'merge on conflicts',
    in: crd('alfa.bravo.com')
      .specNames(full)
      .statusNames(names('zulu', 'yankee-singular', 'xray-kind', 'whiskey-listkind', 'victor-shortname-1', 'uniform-shortname-2')).crd,
    existing: [crd('india.bravo.com').statusNames(names('india', 'indias', 'foxtrot-listkind', '', 'delta-singular')).crd],
    names: names('alfa', 'yankee-singular', 'echo-kind', 'whiskey-listkind', 'golf-shortname-1', 'hotel-shortname-2'),
    namesAccepted: conflictOf('ListKindConflict', '"foxtrot-listkind" is already in use'),
    established: notEstablished,
  },
  {
    name: 'merge on conflicts shortNames as one',
    in: crd('alfa.bravo.com')
      .specNames(full)
      .statusNames(names('zulu', 'yankee-singular', 'xray-kind', 'whiskey-listkind', 'victor-shortname-1', 'uniform-shortname-2')).crd,
    existing: [
      crd('india.bravo.com').statusNames(names('india', 'indias', 'foxtrot-listkind', '', 'delta-singular', 'golf-shortname-1')).crd,
    ],
    names: names('alfa', 'yankee-singular', 'echo-kind', 'whiskey-listkind', 'victor-shortname-1', 'uniform-shortname-2'),
    namesAccepted: conflictOf('ListKindConflict', '"foxtrot-listkind" is already in use'),
    established: notEstablished,
  },
  {
    name: 'no conflicts on self',
    in: crd('alfa.bravo.com').specNames(full).statusNames(full).crd,
    existing: [crd('alfa.bravo.com').specNames(full).statusNames(full).crd],
    names: full,
    namesAccepted: accepted,
    established: installing,
  },
  {
    name: 'no conflicts on self, remove shortname',
    in: crd('alfa.bravo.com')
      .specNames(names('alfa', 'delta-singular', 'echo-kind', 'foxtrot-listkind', 'golf-shortname-1'))
      .statusNames(full).crd,
    existing: [crd('alfa.bravo.com').specNames(full).statusNames(full).crd],
    names: names('alfa', 'delta-singular', 'echo-kind', 'foxtrot-listkind', 'golf-shortname-1'),
    namesAccepted: accepted,
    established: installing,
  },
  {
    name: 'installing before with true condition',
    in: crd('alfa.bravo.com').condition(accepted).crd,
    existing: [],
    names: { plural: 'alfa', kind: '' },
    namesAccepted: accepted,
    established: installing,
  },
  {
    name: 'not installing before with false condition',
    in: crd('alfa.bravo.com').condition(notAccepted).crd,
    existing: [],
    names: { plural: 'alfa', kind: '' },
    namesAccepted: accepted,
    established: installing,
  },
  {
    name: 'conflicting, installing before with true condition',
    in: crd('alfa.bravo.com').specNames(full).condition(accepted).crd,
    existing: [crd('india.bravo.com').statusNames(names('india', 'alfa', '', '')).crd],
    names: names('', 'delta-singular', 'echo-kind', 'foxtrot-listkind', 'golf-shortname-1', 'hotel-shortname-2'),
    namesAccepted: conflictOf('PluralConflict', '"alfa" is already in use'),
    established: notEstablished,
  },
  {
    name: 'conflicting, not installing before with false condition',
    in: crd('alfa.bravo.com').specNames(full).condition(notAccepted).crd,
    existing: [crd('india.bravo.com').statusNames(names('india', 'alfa', '', '')).crd],
    names: names('', 'delta-singular', 'echo-kind', 'foxtrot-listkind', 'golf-shortname-1', 'hotel-shortname-2'),
    namesAccepted: conflictOf('PluralConflict', '"alfa" is already in use'),
    established: notEstablished,
  },
];

describe('calculateNamesAndConditions (kube TestSync)', () => {
  for (const tc of cases) {
    it(tc.name, () => {
      const out = calculateNamesAndConditions(tc.in, tc.existing);
      expect(out.acceptedNames).toEqual(tc.names);
      expect(out.namesAccepted).toEqual(tc.namesAccepted);
      expect(out.established).toEqual(tc.established);
    });
  }

  it('keeps Established True once set, even when a later name conflicts', () => {
    const established = {
      type: 'Established',
      status: 'True',
      reason: 'InitialNamesAccepted',
      message: 'the initial names have been accepted',
    };
    const c = crd('alfa.bravo.com').specNames(full).condition(established).crd;
    const out = calculateNamesAndConditions(c, [crd('india.bravo.com').statusNames(names('india', 'alfa', '', '')).crd]);
    expect(out.established).toEqual(established);
    expect(out.namesAccepted.status).toBe('False');
  });

  it('aggregates several short-name conflicts as kube prints them, and takes categories as they are', () => {
    const c = crd('alfa.bravo.com').specNames({ ...full, shortNames: ['a1', 'a2', 'a3'], categories: ['all'] }).crd;
    const out = calculateNamesAndConditions(c, [crd('india.bravo.com').statusNames(names('india', 'indias', '', '', 'a1', 'a3')).crd]);
    expect(out.namesAccepted).toEqual(conflictOf('ShortNamesConflict', '["a1" is already in use, "a3" is already in use]'));
    expect(out.acceptedNames.shortNames).toBeUndefined();
    expect(out.acceptedNames.categories).toEqual(['all']);
  });

  it('does not change the CRD it is given', () => {
    const c = crd('alfa.bravo.com')
      .specNames(full)
      .statusNames(names('zulu', '', 'Zulu', '')).crd;
    const before = structuredClone(c);
    calculateNamesAndConditions(c, []);
    expect(c).toEqual(before);
  });
});

describe('namingStatusUpdate and establishingStatusUpdate (the controllers’ syncs)', () => {
  const now = '2026-03-01T10:00:00Z';
  it('writes accepted names and conditions for a new CRD, then nothing once they are accepted', () => {
    const c = crd('alfa.bravo.com').specNames(full).crd;
    const next = namingStatusUpdate(c, [c], now);
    expect(next?.status?.acceptedNames).toEqual(full);
    expect(next?.status?.conditions).toEqual([
      { ...accepted, lastTransitionTime: now },
      { ...installing, lastTransitionTime: now },
    ]);
    expect(c.status).toBeUndefined();
    expect(namingStatusUpdate(next as CustomResourceDefinition, [next as CustomResourceDefinition], now)).toBeUndefined();

    const established = establishingStatusUpdate(next as CustomResourceDefinition, '2026-03-01T10:00:01Z');
    expect(established?.status?.conditions?.[1]).toEqual({
      type: 'Established',
      status: 'True',
      lastTransitionTime: '2026-03-01T10:00:01Z',
      reason: 'InitialNamesAccepted',
      message: 'the initial names have been accepted',
    });
    expect(establishingStatusUpdate(established as CustomResourceDefinition, now)).toBeUndefined();
    expect(establishingStatusUpdate(c, now)).toBeUndefined();
  });

  it('writes the conflict once, and nothing again while it stands', () => {
    const india = crd('india.bravo.com').statusNames(names('india', 'alfa', '', '')).crd;
    const c = crd('alfa.bravo.com').specNames(full).crd;
    const next = namingStatusUpdate(c, [india, c], now) as CustomResourceDefinition;
    expect(next.status?.conditions?.[0]).toEqual({ ...conflictOf('PluralConflict', '"alfa" is already in use'), lastTransitionTime: now });
    expect(namingStatusUpdate(next, [india, next], now)).toBeUndefined();
    expect(establishingStatusUpdate(next, now)).toBeUndefined();
  });
});
