/** A node of a parsed (not yet checked) tree: an operation and its arguments. */
export interface CallNode {
  op: string;
  args: unknown[];
  range?: { start: number };
}

/**
 * Every operation node of a parsed tree, depth first, each before its arguments are walked (so a caller may rewrite
 * a node's arguments in place). An explicit stack: a tree nests as deep as the parser allows.
 */
export function* callNodes(ast: unknown): Generator<CallNode> {
  const stack: unknown[] = [ast];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    const { op, args } = node as { op?: unknown; args?: unknown };
    if (typeof op !== 'string' || !Array.isArray(args)) continue;
    yield node as CallNode;
    stack.push(...args);
  }
}
