import type { LibraryEvaluator, LibraryOperator } from './library-evaluator.ts';
import { listSemantics, typedListAdd, typedListEquals } from './typed-lists.ts';
import { celEquals } from './values.ts';

type Handler = LibraryOperator['handler'];

/**
 * Makes `==`, `!=` and `+` of lists honour kube's list types (typed-lists.ts) in one environment, wherever the
 * library compares lists: directly, and inside maps and `in`. The library refuses a second overload of
 * `list<V> == list<V>`, so its declarations are replaced in this environment's operator table by copies whose
 * handler asks the left list's semantics first and otherwise runs the library's own.
 */
export function useTypedListOperators(evaluator: LibraryEvaluator): void {
  const registry = evaluator.registry;
  const replace = (op: string, wrap: (original: Handler) => Handler) => {
    const declarations = registry.operatorCandidates(op).declarations;
    const i = declarations.findIndex((d) => d.signature === `list<V> ${op} list<V>: ${op === '+' ? 'list<V>' : 'bool'}`);
    const original = declarations[i];
    if (!original) throw new Error(`@kapi/cel: the CEL library no longer declares list<V> ${op} list<V>`);
    const handler = wrap(original.handler);
    declarations[i] = Object.freeze(
      Object.create(Object.getPrototypeOf(original), {
        ...Object.getOwnPropertyDescriptors(original),
        handler: { value: handler, enumerable: true },
      }),
    );
  };
  replace('==', (original) => (a, b, ast, ev) => {
    const kind = Array.isArray(a) && Array.isArray(b) ? listSemantics(a) : undefined;
    return kind ? typedListEquals(a as unknown[], kind, b as unknown[], celEquals) : original(a, b, ast, ev);
  });
  replace('!=', (original) => (a, b, ast, ev) => {
    const kind = Array.isArray(a) && Array.isArray(b) ? listSemantics(a) : undefined;
    return kind ? !typedListEquals(a as unknown[], kind, b as unknown[], celEquals) : original(a, b, ast, ev);
  });
  replace('+', (original) => (a, b, ast, ev) => {
    const kind = Array.isArray(a) && Array.isArray(b) ? listSemantics(a) : undefined;
    return kind ? typedListAdd(a as unknown[], kind, b as unknown[], celEquals) : original(a, b, ast, ev);
  });
}
