import {
  type FieldError,
  type FieldSelector,
  fieldErrors,
  formatGroupVersion,
  type LabelSelector,
  newBadRequest,
  newInvalid,
  parseFieldSelector,
  parseLabelSelector,
} from '@kapi/apimachinery';
import type { AttrFunc, SelectionPredicate } from '@kapi/storage';
import { convertObject } from '../convert.ts';
import type { ResourceDefinition, ResourceVersion, SelectableField } from '../resource-definition.ts';
import { defaultStrategy, type Strategy } from '../strategy.ts';
import type { StoreListOptions, StoreWatchOptions } from './types.ts';

/**
 * Checks of list and watch requests as kube-apiserver makes them before reaching storage: ListOptions validation
 * (422 on `ListOptions.meta.k8s.io`) and the field selector's field names (400).
 */

const LIST_OPTIONS_KIND = { group: 'meta.k8s.io', kind: 'ListOptions' };

function invalidListOptions(errs: FieldError[]): void {
  if (errs.length) throw newInvalid(LIST_OPTIONS_KIND, '', errs);
}

/** apimachinery's ValidateListOptions for a list. */
export function validateListOptions(opts: StoreListOptions & { sendInitialEvents?: boolean }): void {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch as string | undefined;
  if (match) {
    if (!opts.resourceVersion)
      errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (opts.continue)
      errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan')
      errs.push(fieldErrors.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && opts.resourceVersion === '0')
      errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (opts.sendInitialEvents !== undefined)
    errs.push(fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  invalidListOptions(errs);
}

/** apimachinery's validateWatchOptions (the WatchList feature enabled). */
export function validateWatchOptions(opts: StoreWatchOptions): void {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch as string | undefined;
  if (opts.sendInitialEvents !== undefined && match !== 'NotOlderThan')
    errs.push(fieldErrors.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  if (match) {
    if (opts.sendInitialEvents === undefined)
      errs.push(
        fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'),
      );
    if (match !== 'NotOlderThan') errs.push(fieldErrors.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (opts.continue)
      errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  invalidListOptions(errs);
}

/**
 * The selectable fields of a list or watch in version `version`: the version's own when it has them (kube serves each
 * CRD version with its own selectableFields), else the definition's.
 */
function selectableFieldsOf(def: ResourceDefinition, version: string | undefined): readonly SelectableField[] {
  return (version === undefined ? undefined : def.version(version)?.selectableFields) ?? def.selectableFields;
}

/** The fields a field selector may name for `def` (in `version`), in the order the error message lists them. */
export function selectableFieldNames(def: ResourceDefinition, version?: string): string[] {
  const names = ['metadata.name'];
  if (def.namespaced) names.push('metadata.namespace');
  for (const f of selectableFieldsOf(def, version)) names.push(f.jsonPath.slice(1));
  return names;
}

function fieldSelector(def: ResourceDefinition, raw: string | undefined, version: string | undefined): FieldSelector | undefined {
  if (!raw) return undefined;
  const selector = parseFieldSelector(raw);
  const known = selectableFieldNames(def, version);
  for (const r of selector.requirements)
    if (!known.includes(r.field))
      throw newBadRequest(
        `${JSON.stringify(r.field)} is not a known field selector: only ${known.map((f) => JSON.stringify(f)).join(', ')}`,
      );
  return selector;
}

function labelSelector(raw: string | undefined): LabelSelector | undefined {
  return raw ? parseLabelSelector(raw) : undefined;
}

const versionStrategies = new WeakMap<ResourceVersion, Pick<Strategy, 'getAttrs'>>();

/**
 * The attributes a selector of a request in `version` sees. A version with selectable fields of its own reads them on
 * the object in that version, as kube's per-version storage does: a stored object of another version is converted
 * first, unless no version has converters (the versions then differ in apiVersion only, as a CRD's None strategy). A
 * kind with an asynchronous `conversion` (a CRD's webhook) cannot convert inside the storage's filter: there the fields
 * are read on the stored object.
 */
function attrsFor(def: ResourceDefinition, version: string | undefined): AttrFunc {
  const own = version === undefined ? undefined : def.version(version);
  if (!own?.selectableFields) return (o) => def.strategy.getAttrs(o);
  let strategy = versionStrategies.get(own);
  if (!strategy) {
    strategy = defaultStrategy({ namespaced: def.namespaced, subresources: def.subresources, selectableFields: own.selectableFields });
    versionStrategies.set(own, strategy);
  }
  const attrs = strategy;
  const converts = !def.conversion && def.versions.some((v) => v.fromHub !== undefined);
  if (!converts) return (o) => attrs.getAttrs(o);
  const apiVersion = formatGroupVersion({ group: def.group, version: own.name });
  return (o) => attrs.getAttrs(o.apiVersion === apiVersion ? o : convertObject(def, o, own.name));
}

/**
 * The storage predicate of a list or watch: parsed selectors, limit, continue and the kind's attributes. The field
 * selector names the selectable fields of `opts.selectorVersion ?? opts.version`.
 */
export function selectionPredicate(def: ResourceDefinition, opts: StoreListOptions): SelectionPredicate {
  const version = opts.selectorVersion ?? opts.version;
  const label = labelSelector(opts.labelSelector);
  const field = fieldSelector(def, opts.fieldSelector, version);
  // Without field requirements only labels and metadata are looked at, the same in every version.
  const pred: SelectionPredicate = { getAttrs: field ? attrsFor(def, version) : (o) => def.strategy.getAttrs(o) };
  if (label) pred.label = label;
  if (field) pred.field = field;
  if (opts.limit !== undefined && opts.limit > 0) pred.limit = opts.limit;
  if (opts.continue) pred.continue = opts.continue;
  return pred;
}
