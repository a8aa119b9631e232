import { type CelType, objectRuntime } from './cel-type.ts';
import type { LibraryEvaluator, LibraryObjectType, LibraryType } from './library-evaluator.ts';

/**
 * Lets the nullable fields of the object types a declaration reaches hold null when read (kube's UnstructuredToVal
 * gives a null nullable field CEL's null: `self.x == null` holds and `has(self.x)` is true). The library checks every
 * field it reads against the field's declared type, which null never matches; the runtime view of each such object
 * type (the one the evaluator finds by the value's constructor; the checker keeps its own) gets field types that
 * also accept null. Whether any type has such a field (then programs need guardNulls, null-dispatch.ts).
 */
export function acceptNullInNullableFields(evaluator: LibraryEvaluator, types: Iterable<CelType>): boolean {
  const byConstructor = evaluator.registry.objectTypesByConstructor;
  const done = new Set<string>();
  let any = false;
  const stack = [...types];
  while (stack.length > 0) {
    const type = stack.pop() as CelType;
    if (typeof type === 'string') continue;
    if (type.kind !== 'object') {
      stack.push(type.kind === 'list' ? type.elem : type.value);
      continue;
    }
    if (done.has(type.name)) continue;
    done.add(type.name);
    const runtime = objectRuntime(type);
    for (const [, , field] of runtime.fields) stack.push(field);
    if (runtime.nullable.size === 0) continue;
    any = true;
    const declared = byConstructor.get(runtime.ctor);
    if (!declared?.fields) throw new Error(`@kapi/cel: the CEL library no longer registers ${type.name} by its constructor`);
    const fields: Record<string, LibraryType> = { ...declared.fields };
    for (const name of runtime.nullable) {
      const field = fields[name];
      if (field) fields[name] = orNull(field);
    }
    byConstructor.set(runtime.ctor, Object.freeze({ ...declared, fields }) as LibraryObjectType);
  }
  return any;
}

/** The type with a value check that also lets null through (its name and everything else unchanged). */
function orNull(type: LibraryType): LibraryType {
  return Object.create(type, {
    matchesValueType: { value: (value: unknown, ev: LibraryEvaluator) => value === null || type.matchesValueType(value, ev) },
  });
}
