/**
 * CEL's reserved words: its keywords and the words it keeps for later (cel-spec's lexis). kube lists them as
 * celReservedSymbols for cel.Escape (k8s.io/apiserver/pkg/cel/escaping.go) and again as celReserved for variable names
 * (admissionregistration validation); here one set serves both.
 */
export const CEL_RESERVED_WORDS: ReadonlySet<string> = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
