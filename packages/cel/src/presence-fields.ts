import { type CelType, objectRuntime, typeName } from './cel-type.ts';

interface Node {
  op?: unknown;
  args?: unknown;
  range?: { start: number; end: number };
  checkedType?: { name?: string };
}

/** Every object type a declared type reaches, by name: its fields by CEL name and their type names. */
export function objectFields(types: Iterable<CelType>): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  const stack = [...types];
  while (stack.length > 0) {
    const type = stack.pop() as CelType;
    if (typeof type === 'string') continue;
    if (type.kind !== 'object') {
      stack.push(type.kind === 'list' ? type.elem : type.value);
      continue;
    }
    if (out.has(type.name)) continue;
    const fields = new Map<string, string>();
    for (const [, name, field] of objectRuntime(type).fields) {
      fields.set(name, typeName(field));
      stack.push(field);
    }
    out.set(type.name, fields);
  }
  return out;
}

/**
 * A field selection the library's checker lets through and cel-go refuses: `has(self.x)` and `self.?x` on an object
 * type without field `x` (the library checks neither). The field and the offset of its dot, or undefined.
 */
export function undeclaredPresenceField(
  expression: string,
  ast: unknown,
  objects: ReadonlyMap<string, ReadonlyMap<string, string>>,
): { field: string; offset: number } | undefined {
  if (objects.size === 0) return undefined;
  // the type of a selection the checker left unchecked (inside has()), from the declared fields
  const typeOf = (node: Node): string | undefined => {
    // an optional selection (`self.?a`) selects on what it wraps
    if (node.checkedType?.name) return /^optional<(.+)>$/.exec(node.checkedType.name)?.[1] ?? node.checkedType.name;
    if ((node.op === '.' || node.op === '.?') && Array.isArray(node.args) && typeof node.args[1] === 'string') {
      const receiver = typeOf(node.args[0] as Node);
      return receiver === undefined ? undefined : objects.get(receiver)?.get(node.args[1]);
    }
    return undefined;
  };
  const stack: unknown[] = [ast];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    const n = node as Node;
    if (!Array.isArray(n.args)) continue;
    if ((n.op === '.' || n.op === '.?') && typeof n.args[1] === 'string') {
      const receiver = n.args[0] as Node;
      const fields = objects.get(typeOf(receiver) ?? '');
      if (fields && !fields.has(n.args[1])) {
        const at = receiver.range ? expression.indexOf('.', receiver.range.end) : -1;
        return { field: n.args[1], offset: at >= 0 ? at : (n.range?.start ?? 0) };
      }
    }
    stack.push(...n.args);
  }
  return undefined;
}
