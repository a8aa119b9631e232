/**
 * Validation of a value against its type (SMD typed/validate.go, `TypedValue.Validate` / `AsTyped`): scalars of
 * the right kind, lists and maps where the schema says so, no undeclared fields in a map without an elementType,
 * associative-list items identifiable, and no two items with the same key or set value (unless
 * `allowDuplicates`, as kube passes for values that are not apply configurations). Errors carry SMD's messages
 * and paths (`.spec.ports[port=80,protocol="TCP"]: duplicate entries for key [port=80,protocol="TCP"]`).
 *
 * Inputs are plain JSON values (from JSON.parse) and are never mutated.
 */

import { pathString } from '../fieldpath/path.ts';
import { type PathElement, pathElementString } from '../fieldpath/path-element.ts';
import { isJsonObject } from '../json-data.ts';
import {
  deduceMask,
  errorf,
  handlerOf,
  invalidAtomError,
  itemIdentity,
  listItemToPathElement,
  noTypeError,
  type ValidationError,
  validateScalar,
  wrongKind,
} from './helpers.ts';
import { isEmptyTypeRef, type ListType, type MapType, type Schema, type TypedSchema, type TypeRef } from './schema.ts';

export interface ValidateOptions {
  /** Sets and associative lists may hold duplicate items (kube allows them in live objects and updates). */
  allowDuplicates?: boolean;
}

/** The problems of `value` as a value of `type` (empty when it is valid). */
export function validate(type: TypedSchema, value: unknown, options: ValidateOptions = {}): ValidationError[] {
  const w = new Validator(type.schema, options.allowDuplicates ?? false);
  w.walk(type.typeRef, value);
  return w.errors;
}

// Errors are collected with the path where they arose (SMD prefixes them while unwinding: the same text).
class Validator {
  readonly errors: ValidationError[] = [];
  private readonly path: PathElement[] = [];
  private readonly schema: Schema;
  private readonly allowDuplicates: boolean;
  constructor(schema: Schema, allowDuplicates: boolean) {
    this.schema = schema;
    this.allowDuplicates = allowDuplicates;
  }

  private fail(errs: readonly ValidationError[]): void {
    const at = pathString(this.path);
    for (const e of errs) this.errors.push({ path: at + e.path, message: e.message });
  }

  walk(tr: TypeRef, v: unknown): void {
    const atom = this.schema.resolve(tr);
    if (!atom) {
      this.fail(noTypeError(tr));
      return;
    }
    switch (handlerOf(deduceMask(atom, v))) {
      case 'map':
        this.doMap(atom.map as MapType, v);
        return;
      case 'scalar': {
        const errs = validateScalar(atom.scalar ?? 'untyped', v, '');
        if (errs.length) this.fail(errs);
        return;
      }
      case 'list':
        this.doList(atom.list as ListType, v);
        return;
      default:
        this.fail(invalidAtomError(tr));
        return;
    }
  }

  private doList(t: ListType, v: unknown): void {
    if (v === null) return;
    if (!Array.isArray(v)) {
      this.fail(errorf(wrongKind('list', v)));
      return;
    }
    const seen = t.elementRelationship === 'associative' ? new Set<string>() : undefined;
    for (let i = 0; i < v.length; i++) {
      const child: unknown = v[i];
      let pe: PathElement;
      if (!seen) pe = { index: i };
      else {
        const got = listItemToPathElement(this.schema, t, child);
        if (typeof got === 'string') {
          this.fail(errorf(`element ${i}: ${got}`));
          return;
        }
        pe = got;
        const key = itemIdentity(pe);
        if (seen.has(key) && !this.allowDuplicates) this.fail(errorf(`duplicate entries for key ${pathElementString(pe)}`));
        seen.add(key);
      }
      this.path.push(pe);
      this.walk(t.elementType, child);
      this.path.pop();
    }
  }

  private doMap(t: MapType, v: unknown): void {
    if (v === undefined) {
      this.fail(errorf(wrongKind('map', v)));
      return;
    }
    if (v === null) return;
    if (!isJsonObject(v)) {
      this.fail(errorf(wrongKind('map', v)));
      return;
    }
    for (const key of Object.keys(v)) {
      if (v[key] === undefined) continue; // not JSON: a key set to undefined is absent (JSON.stringify drops it)
      const field = this.schema.findField(t, key);
      this.path.push({ fieldName: key });
      if (!field && isEmptyTypeRef(t.elementType)) {
        this.fail(errorf('field not declared in schema'));
        this.path.pop();
        return;
      }
      this.walk(field ? field.type : (t.elementType as TypeRef), v[key]);
      this.path.pop();
    }
  }
}
