import {
  type FieldError,
  type FieldSelector,
  fieldErrors,
  type LabelSelector,
  newBadRequest,
  newInvalid,
  parseFieldSelector,
  parseLabelSelector,
} from '@kapi/apimachinery';
import type { SelectionPredicate } from '@kapi/storage';
import type { ResourceDefinition } from '../resource-definition.ts';
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

/** The fields a field selector may name for `def`, in the order the error message lists them. */
export function selectableFieldNames(def: ResourceDefinition): string[] {
  const names = ['metadata.name'];
  if (def.namespaced) names.push('metadata.namespace');
  for (const f of def.selectableFields) names.push(f.jsonPath.slice(1));
  return names;
}

function fieldSelector(def: ResourceDefinition, raw: string | undefined): FieldSelector | undefined {
  if (!raw) return undefined;
  const selector = parseFieldSelector(raw);
  const known = selectableFieldNames(def);
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

/** The storage predicate of a list or watch: parsed selectors, limit, continue and the kind's attributes. */
export function selectionPredicate(def: ResourceDefinition, opts: StoreListOptions): SelectionPredicate {
  const pred: SelectionPredicate = { getAttrs: (o) => def.strategy.getAttrs(o) };
  const label = labelSelector(opts.labelSelector);
  const field = fieldSelector(def, opts.fieldSelector);
  if (label) pred.label = label;
  if (field) pred.field = field;
  if (opts.limit !== undefined && opts.limit > 0) pred.limit = opts.limit;
  if (opts.continue) pred.continue = opts.continue;
  return pred;
}
