import {
  ESTABLISHED_INITIAL_NAMES_ACCEPTED,
  ESTABLISHED_INSTALLING,
  ESTABLISHED_NOT_ACCEPTED,
  findCRDCondition,
  isCRDConditionEquivalent,
  isCRDConditionTrue,
  NAMES_ACCEPTED_NO_CONFLICTS,
  setCRDCondition,
} from './conditions.ts';
import type { CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionNames } from './types.ts';

type Condition = Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>;

/** What the naming controller decides for one CRD. */
export interface NamingOutcome {
  /** The names to write to status.acceptedNames. */
  acceptedNames: CustomResourceDefinitionNames;
  /** NamesAccepted: True "NoConflicts", or False with the reason of the last conflict found (PluralConflict, …). */
  namesAccepted: Condition;
  /** Established as the naming controller leaves it (True stays True; the establishing controller sets True). */
  established: Condition;
}

/** The names already accepted by the CRDs of one group: resources (plural, singular, short names) and kinds. */
function acceptedNamesForGroup(group: string, all: readonly CustomResourceDefinition[]): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const crd of all) {
    if (crd.spec.group !== group) continue;
    const n = crd.status?.acceptedNames;
    // Go inserts the zero value "" of an absent name too; it never clashes with a requested name, which is validated.
    resources.add(n?.plural ?? '');
    resources.add(n?.singular ?? '');
    for (const s of n?.shortNames ?? []) resources.add(s);
    kinds.add(n?.kind ?? '');
    kinds.add(n?.listKind ?? '');
  }
  return { resources, kinds };
}

/** equalToAcceptedOrFresh: a requested name is fine when it is already ours or nobody in the group has it. */
function conflict(requested: string, accepted: string, used: Set<string>): string | undefined {
  if (requested === accepted || !used.has(requested)) return undefined;
  return `${JSON.stringify(requested)} is already in use`;
}

/** utilerrors.NewAggregate's text: one message as it is, several (deduplicated) as `[a, b]`. */
function aggregate(msgs: readonly string[]): string {
  const unique = [...new Set(msgs)];
  return unique.length === 1 ? (unique[0] as string) : `[${unique.join(', ')}]`;
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  // reflect.DeepEqual tells a nil slice from an empty one; JSON carries no such difference, so absent and [] are alike.
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/**
 * kube's NamingConditionController.calculateNamesAndConditions as a pure function: given a CRD and every CRD the
 * controller knows (the CRD itself may be among them), which of its requested names (spec.names) it may have. A name
 * that is already its accepted name, or that no CRD of the same group has accepted, is taken; a name in use keeps the
 * previously accepted one and sets NamesAccepted False with that conflict's reason and `"<name>" is already in use`
 * (the last conflict found wins, checked in the order plural, singular, short names, kind, list kind). Plural,
 * singular and short names share one namespace, kind and list kind another; categories never conflict.
 */
export function calculateNamesAndConditions(crd: CustomResourceDefinition, all: readonly CustomResourceDefinition[]): NamingOutcome {
  const { resources, kinds } = acceptedNamesForGroup(crd.spec.group, all);
  const requested = crd.spec.names;
  const accepted: CustomResourceDefinitionNames = crd.status?.acceptedNames ?? { plural: '', kind: '' };
  const next: CustomResourceDefinitionNames = structuredClone(accepted);
  let namesAccepted: Condition | undefined;
  const fail = (reason: string, message: string) => {
    namesAccepted = { type: 'NamesAccepted', status: 'False', reason, message };
  };

  const plural = conflict(requested.plural, accepted.plural, resources);
  if (plural) fail('PluralConflict', plural);
  else next.plural = requested.plural;

  const singular = conflict(requested.singular ?? '', accepted.singular ?? '', resources);
  if (singular) fail('SingularConflict', singular);
  else setOptional(next, 'singular', requested.singular);

  if (!sameList(requested.shortNames, accepted.shortNames)) {
    const ours = new Set(accepted.shortNames ?? []);
    const errs: string[] = [];
    for (const s of requested.shortNames ?? []) {
      if (ours.has(s)) continue;
      const c = conflict(s, '', resources);
      if (c) errs.push(c);
    }
    if (errs.length) fail('ShortNamesConflict', aggregate(errs));
    else setOptional(next, 'shortNames', requested.shortNames);
  }

  const kind = conflict(requested.kind, accepted.kind, kinds);
  if (kind) fail('KindConflict', kind);
  else next.kind = requested.kind;

  const listKind = conflict(requested.listKind ?? '', accepted.listKind ?? '', kinds);
  if (listKind) fail('ListKindConflict', listKind);
  else setOptional(next, 'listKind', requested.listKind);

  setOptional(next, 'categories', requested.categories);

  const names = namesAccepted ?? { ...NAMES_ACCEPTED_NO_CONFLICTS };
  const old = findCRDCondition(crd, 'Established');
  let established: Condition = old ? { type: old.type, status: old.status, ...reasonMessage(old) } : { ...ESTABLISHED_NOT_ACCEPTED };
  if (established.status !== 'True' && names.status === 'True') established = { ...ESTABLISHED_INSTALLING };
  return { acceptedNames: next, namesAccepted: names, established };
}

function reasonMessage(c: Condition): Partial<Condition> {
  return { ...(c.reason !== undefined ? { reason: c.reason } : {}), ...(c.message !== undefined ? { message: c.message } : {}) };
}

/** Sets an omitempty field, leaving it out when Go would (empty string or list). */
function setOptional<K extends 'singular' | 'listKind' | 'shortNames' | 'categories'>(
  names: CustomResourceDefinitionNames,
  key: K,
  value: CustomResourceDefinitionNames[K],
): void {
  if (value === undefined || value.length === 0) delete names[key];
  else names[key] = (Array.isArray(value) ? [...value] : value) as CustomResourceDefinitionNames[K];
}

/** apiequality.Semantic.DeepEqual on two name sets: an absent list and an empty one are alike. */
function sameNames(a: CustomResourceDefinitionNames | undefined, b: CustomResourceDefinitionNames | undefined): boolean {
  const x = a ?? { plural: '', kind: '' };
  const y = b ?? { plural: '', kind: '' };
  return (
    (x.plural ?? '') === (y.plural ?? '') &&
    (x.singular ?? '') === (y.singular ?? '') &&
    (x.kind ?? '') === (y.kind ?? '') &&
    (x.listKind ?? '') === (y.listKind ?? '') &&
    sameList(x.shortNames, y.shortNames) &&
    sameList(x.categories, y.categories)
  );
}

/**
 * The naming controller's sync for one CRD, without the client: the CRD to write through `/status`, or undefined when
 * there is nothing to write (its spec names are all accepted already, or the outcome changes neither the accepted names
 * nor NamesAccepted). `all` is every CRD the controller knows; `now` stamps changed conditions. The CRD is not changed.
 * After a write the controller requeues the other CRDs of the group: a released name may unblock one of them.
 */
export function namingStatusUpdate(
  crd: CustomResourceDefinition,
  all: readonly CustomResourceDefinition[],
  now: string,
): CustomResourceDefinition | undefined {
  if (sameNames(crd.spec.names, crd.status?.acceptedNames)) return undefined;
  const out = calculateNamesAndConditions(crd, all);
  if (
    sameNames(crd.status?.acceptedNames, out.acceptedNames) &&
    isCRDConditionEquivalent(out.namesAccepted, findCRDCondition(crd, 'NamesAccepted'))
  )
    return undefined;
  const next = structuredClone(crd);
  next.status = { ...next.status, acceptedNames: out.acceptedNames };
  setCRDCondition(next, out.namesAccepted, now);
  setCRDCondition(next, out.established, now);
  return next;
}

/**
 * The establishing controller's sync (establish/establishing_controller.go), without the client: once NamesAccepted is
 * True and Established is not, the CRD with Established True "InitialNamesAccepted" (to write through `/status` once
 * its API is served); otherwise undefined. The CRD is not changed.
 */
export function establishingStatusUpdate(crd: CustomResourceDefinition, now: string): CustomResourceDefinition | undefined {
  if (!isCRDConditionTrue(crd, 'NamesAccepted') || isCRDConditionTrue(crd, 'Established')) return undefined;
  const next = structuredClone(crd);
  setCRDCondition(next, ESTABLISHED_INITIAL_NAMES_ACCEPTED, now);
  return next;
}
