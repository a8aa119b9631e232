/**
 * Validation of a value against its type (SMD typed/validate.go, `TypedValue.Validate` / `AsTyped`): scalars of
 * the right kind, lists and maps where the schema says so, no undeclared fields in a map without an elementType,
 * associative-list items identifiable, and no two items with the same key or set value (unless
 * `allowDuplicates`, as kube passes for values that are not apply configurations). Errors carry SMD's messages
 * and paths (`.spec.ports[port=80,protocol="TCP"]: duplicate entries for key [port=80,protocol="TCP"]`).
 *
 * Inputs are plain JSON values (from JSON.parse) and are never mutated.
 */
import { pathElementString } from '../fieldpath/path-element.ts';
import { getOwn } from '../json-data.ts';
import {
  deduceMask,
  errorf,
  handlerOf,
  invalidAtomError,
  isMapValue,
  itemIdentity,
  listItemToPathElement,
  noTypeError,
  type ValidationError,
  validateScalar,
  withPrefix,
  wrongKind,
} from './helpers.ts';
import { isEmptyTypeRef, type ListType, type MapType, type Schema, type TypedSchema, type TypeRef } from './schema.ts';

export interface ValidateOptions {
  /** Sets and associative lists may hold duplicate items (kube allows them in live objects and updates). */
  allowDuplicates?: boolean;
}

/** The problems of `value` as a value of `type` (empty when it is valid). */
export function validate(type: TypedSchema, value: unknown, options: ValidateOptions = {}): ValidationError[] {
  return walk(type.schema, type.typeRef, value, options.allowDuplicates ?? false);
}

function walk(schema: Schema, tr: TypeRef, v: unknown, allowDuplicates: boolean): ValidationError[] {
  const atom = schema.resolve(tr);
  if (!atom) return noTypeError(tr);
  switch (handlerOf(deduceMask(atom, v))) {
    case 'map':
      return doMap(schema, atom.map as MapType, v, allowDuplicates);
    case 'scalar':
      return validateScalar(atom.scalar ?? 'untyped', v, '');
    case 'list':
      return doList(schema, atom.list as ListType, v, allowDuplicates);
    default:
      return invalidAtomError(tr);
  }
}

function doList(schema: Schema, t: ListType, v: unknown, allowDuplicates: boolean): ValidationError[] {
  if (v === null) return [];
  if (!Array.isArray(v)) return errorf(wrongKind('list', v));
  const errs: ValidationError[] = [];
  const associative = t.elementRelationship === 'associative';
  const seen = associative ? new Set<string>() : undefined;
  for (let i = 0; i < v.length; i++) {
    const child: unknown = v[i];
    let prefix: string;
    if (!seen) prefix = `[${i}]`;
    else {
      const pe = listItemToPathElement(schema, t, child);
      if (typeof pe === 'string') {
        errs.push(...errorf(`element ${i}: ${pe}`));
        return errs;
      }
      prefix = pathElementString(pe);
      const key = itemIdentity(pe);
      if (seen.has(key) && !allowDuplicates) errs.push(...errorf(`duplicate entries for key ${prefix}`));
      seen.add(key);
    }
    errs.push(...withPrefix(walk(schema, t.elementType, child, allowDuplicates), prefix));
  }
  return errs;
}

function doMap(schema: Schema, t: MapType, v: unknown, allowDuplicates: boolean): ValidationError[] {
  if (v === undefined) return errorf(wrongKind('map', v));
  if (v === null) return [];
  if (!isMapValue(v)) return errorf(wrongKind('map', v));
  const errs: ValidationError[] = [];
  for (const key of Object.keys(v)) {
    const field = schema.findField(t, key);
    if (!field && isEmptyTypeRef(t.elementType)) {
      errs.push(...withPrefix(errorf('field not declared in schema'), `.${key}`));
      break;
    }
    const tr = field ? field.type : (t.elementType as TypeRef);
    errs.push(...withPrefix(walk(schema, tr, getOwn(v, key), allowDuplicates), `.${key}`));
  }
  return errs;
}
