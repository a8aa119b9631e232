/**
 * cel-go dispatches operators and functions on the values they get; the CEL library picks an overload from the
 * checked types once and calls it without looking at the values. Only a null in a nullable field (nullable-fields.ts)
 * can make a value disagree with its checked type, and then cel-go's answers are: `==` and `!=` compare (null equals
 * only null), `null in list` looks for it, every other operator or function has no overload for null. `guardNulls` gives the checked tree's
 * operator and call nodes those answers; it is applied only in environments whose declarations have nullable fields.
 */

const COMPARISON = new Set(['==', '!=']);
const OPERATORS = new Set(['<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'in']);
const UNARY = new Set(['!_', '-_']);

interface CheckedType {
  readonly name?: string;
  readonly hasDynType?: boolean;
}

// functions cel-go declares for any value (type(null) is null_type)
const ANY_VALUE_FUNCTIONS = new Set(['type', 'dyn']);

interface Node {
  op?: unknown;
  args?: unknown;
  left?: Node;
  right?: Node;
  checkedType?: CheckedType;
  receiverWithArgs?: Node[];
  // biome-ignore lint/suspicious/noExplicitAny: the library calls each kind of node's handle with its own arguments
  handle?: (...args: any[]) => unknown;
}

/** cel-go's runtime text for a call without a matching overload (kube matches its prefix). */
function noSuchOverload(): never {
  throw new Error('no such overload');
}

/** A value of this checked type may be null without leaving the overload's domain. */
function takesNull(type: CheckedType | undefined): boolean {
  return type === undefined || type.hasDynType === true || type.name === 'null';
}

export function guardNulls(ast: unknown): void {
  const stack: unknown[] = [ast];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    const n = node as Node;
    if (Array.isArray(n.args)) stack.push(...n.args);
    else if (typeof n.args === 'object') stack.push(n.args);
    const handle = n.handle;
    if (typeof handle !== 'function' || typeof n.op !== 'string') continue;
    if (COMPARISON.has(n.op)) {
      const equal = n.op === '==';
      n.handle = (l: unknown, r: unknown, ...rest: unknown[]) => (l === null || r === null ? (l === r) === equal : handle(l, r, ...rest));
    } else if (OPERATORS.has(n.op)) {
      // `null in list` looks for null (cel-go's Contains compares), `x in null` has no overload
      const lt = n.op === 'in' ? { name: 'null' } : n.left?.checkedType;
      const rt = n.right?.checkedType;
      n.handle = (l: unknown, r: unknown, ...rest: unknown[]) =>
        (l === null && !takesNull(lt)) || (r === null && !takesNull(rt)) ? noSuchOverload() : handle(l, r, ...rest);
    } else if (UNARY.has(n.op)) {
      n.handle = (v: unknown, ...rest: unknown[]) => (v === null ? noSuchOverload() : handle(v, ...rest));
    } else if (n.op === 'rcall' && n.receiverWithArgs) {
      const types = n.receiverWithArgs.map((a) => a.checkedType);
      n.handle = (values: unknown[], ...rest: unknown[]) =>
        values.some((v, i) => v === null && !takesNull(types[i])) ? noSuchOverload() : handle(values, ...rest);
    } else if (n.op === 'call' && Array.isArray(n.args) && Array.isArray(n.args[1]) && !ANY_VALUE_FUNCTIONS.has(n.args[0] as string)) {
      const types = (n.args[1] as Node[]).map((a) => a.checkedType);
      n.handle = (values: unknown[], ...rest: unknown[]) =>
        values.some((v, i) => v === null && !takesNull(types[i])) ? noSuchOverload() : handle(values, ...rest);
    }
  }
}
