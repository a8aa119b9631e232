import { callNodes } from './ast-calls.ts';

/**
 * Member functions the CEL library has built in with semantics that differ from cel-go's, and which it will not
 * let be replaced (it refuses a second overload of a signature): `matches` compiles JavaScript syntax instead of
 * RE2; `indexOf`, `lastIndexOf` and `substring` count UTF-16 units instead of code points and word their errors
 * differently; `lowerAscii`/`upperAscii` fold non-ASCII letters too. kube's versions are registered under other
 * names, and `compile` renames member calls in the parsed tree before checking (macro expansions share those
 * nodes); error texts name the functions as written.
 */
const RENAMED: Readonly<Record<string, string>> = {
  matches: 'kube_matches',
  indexOf: 'kube_indexOf',
  lastIndexOf: 'kube_lastIndexOf',
  substring: 'kube_substring',
  lowerAscii: 'kube_lowerAscii',
  upperAscii: 'kube_upperAscii',
};

/** The name kube's version of a member function is registered under. */
export function kubeName(name: keyof typeof RENAMED & string): string {
  return RENAMED[name] as string;
}

/** Renames member calls of the overridden functions in a parsed, not yet checked tree. */
export function useKubeOverloads(ast: unknown): void {
  for (const { op, args } of callNodes(ast))
    if (op === 'rcall' && typeof args[0] === 'string' && Object.hasOwn(RENAMED, args[0])) args[0] = RENAMED[args[0]];
}

/** The text with the registered names turned back into the names a user wrote. */
export function userNames(text: string): string {
  return text.replace(/kube_([A-Za-z]+)/g, '$1');
}
