import { Environment } from '@marcbachmann/cel-js';
import { type CelType, registerObjectTypes, typeName } from './cel-type.ts';
import { instrumentCost } from './cost.ts';
import { CelCompileError, type CelIssue, locate } from './errors.ts';
import { registerKubernetesLibraries } from './library/index.ts';
import { useKubeOverloads, userNames } from './library/overrides.ts';
import { checkRegexLiterals } from './library/regex-literals.ts';
import { libraryEvaluator } from './library-evaluator.ts';
import { useTypedListOperators } from './list-operators.ts';
import { guardNulls } from './null-dispatch.ts';
import { acceptNullInNullableFields } from './nullable-fields.ts';
import { objectFields, undeclaredPresenceField } from './presence-fields.ts';
import { Program } from './program.ts';

export interface CelEnvironmentOptions {
  /** The variables an expression may use and their declared types, e.g. `{ self: 'dyn', oldSelf: 'dyn' }`. */
  readonly variables?: Readonly<Record<string, CelType>>;
}

export type CompileResult =
  | { readonly kind: 'program'; readonly program: Program }
  | { readonly kind: 'error'; readonly error: CelCompileError };

let base: Environment | undefined;

/** CEL's standard library, optional types and kube's libraries; built once, cloned per environment. */
function baseEnvironment(): Environment {
  if (!base) {
    // kube's environments allow mixed list/map literals (they become list(dyn)), and enable optionals
    base = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false, unlistedVariablesAreDyn: false });
    registerKubernetesLibraries(base);
    // cel-go's checker lets timestamps, durations and opaque types be compared with null (legacy nullability)
    for (const type of ['google.protobuf.Timestamp', 'google.protobuf.Duration', 'kubernetes.Quantity', 'kubernetes.URL'])
      base.registerOperator(`${type} == null`, (a: unknown, b: unknown) => a === b);
  }
  return base;
}

/**
 * One CEL environment: the standard library, kube's libraries (lists, strings, regex, URLs, quantities)
 * and declared variables. `compile` parses and type-checks an expression against the declarations;
 * the Program it gives is evaluated many times. Environments are cheap: the libraries are shared.
 */
export class CelEnvironment {
  readonly #env: Environment;
  readonly #variables: Readonly<Record<string, CelType>>;
  readonly #objects: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Some declared object type has a nullable field: a null may reach operators typed for something else. */
  readonly #nullable: boolean;

  constructor(options: CelEnvironmentOptions = {}) {
    this.#variables = { ...options.variables };
    this.#objects = objectFields(Object.values(this.#variables));
    this.#env = baseEnvironment().clone();
    const registered = new Set<string>();
    for (const [name, type] of Object.entries(this.#variables)) {
      registerObjectTypes(this.#env, type, registered);
      this.#env.registerVariable(name, typeName(type));
    }
    const evaluator = libraryEvaluator(this.#env);
    instrumentCost(evaluator);
    useTypedListOperators(evaluator);
    this.#nullable = acceptNullInNullableFields(evaluator, Object.values(this.#variables));
  }

  compile(expression: string): CompileResult {
    let parsed: ReturnType<Environment['parse']>;
    try {
      parsed = this.#env.parse(expression);
    } catch (e) {
      return { kind: 'error', error: new CelCompileError(expression, [issueOf(expression, e)]) };
    }
    useKubeOverloads(parsed.ast);
    const checked = parsed.check();
    if (!checked.valid) return { kind: 'error', error: new CelCompileError(expression, [issueOf(expression, checked.error)]) };
    const undeclared = undeclaredPresenceField(expression, parsed.ast, this.#objects);
    if (undeclared)
      return {
        kind: 'error',
        error: new CelCompileError(expression, [
          { message: `undefined field '${undeclared.field}'`, ...locate(expression, undeclared.offset) },
        ]),
      };
    if (this.#nullable) guardNulls(parsed.ast);
    const regex = checkRegexLiterals(parsed.ast);
    if (regex)
      return { kind: 'error', error: new CelCompileError(expression, [{ message: regex.message, ...locate(expression, regex.offset) }]) };
    return { kind: 'program', program: new Program(expression, parsed, this.#variables, checked.type ?? 'dyn') };
  }
}

interface Range {
  start: number;
  end: number;
}

interface LibraryNode {
  op?: string;
  range?: Range;
  args?: unknown;
}

interface LibraryError {
  code?: string;
  summary?: string;
  message: string;
  range?: Range;
  node?: LibraryNode;
}

const BINARY = new Set(['==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'in', '&&', '||']);

/**
 * Where cel-go puts an issue: at the operator of a binary expression, the dot of a field selection, the
 * opening parenthesis of a call; the library marks the start of the whole node instead.
 */
function issueOffset(expression: string, error: LibraryError): number {
  const node = error.node;
  const start = error.range?.start ?? 0;
  if (!node?.op || !node.range || !Array.isArray(node.args)) return start;
  const args = node.args as unknown[];
  const rangeOf = (v: unknown) => (v as LibraryNode | undefined)?.range;
  let at = -1;
  if (BINARY.has(node.op)) {
    const left = rangeOf(args[0]);
    if (left) at = expression.indexOf(node.op, left.end);
  } else if (node.op === '.' || node.op === '.?') {
    const receiver = rangeOf(args[0]);
    if (receiver) at = expression.indexOf('.', receiver.end);
  } else if (node.op === 'call') {
    at = expression.indexOf('(', node.range.start);
  } else if (node.op === 'rcall') {
    const receiver = rangeOf(args[1]);
    if (receiver) at = expression.indexOf('(', receiver.end);
  }
  return at >= 0 && at < node.range.end ? at : start;
}

function issueOf(expression: string, e: unknown): CelIssue {
  const error = e as LibraryError;
  const { line, column } = locate(expression, issueOffset(expression, error));
  return { message: celGoMessage(error.code, error.summary ?? error.message), line, column };
}

/** The library's texts for the most common compile errors, in cel-go's words (what kube users see). */
function celGoMessage(code: string | undefined, text: string): string {
  const summary = userNames(text);
  const variable = /^Unknown variable: (.+)$/.exec(summary);
  if (code === 'unknown_variable' && variable) return `undeclared reference to '${variable[1]}' (in container '')`;
  const field = /^No such key: (.+)$/.exec(summary);
  if (code === 'no_such_key' && field) return `undefined field '${field[1]}'`;
  const operator = /^no such overload: (\S+) (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (\S+)$/.exec(summary);
  if (operator) {
    const op = operator[2] === 'in' ? '@in' : `_${operator[2]}_`;
    return `found no matching overload for '${op}' applied to '(${celGoType(operator[1] as string)}, ${celGoType(operator[3] as string)})'`;
  }
  const call = /^found no matching overload for '(?:(.+)\.)?([A-Za-z_][A-Za-z0-9_]*)\((.*)\)'$/.exec(summary);
  if (call) {
    const target = call[1] === undefined ? '' : `${celGoType(call[1])}.`;
    return `found no matching overload for '${call[2]}' applied to '${target}(${celGoType(call[3] as string)})'`;
  }
  return summary;
}

/** `list<int>` → `list(int)`, as cel-go prints types. */
function celGoType(type: string): string {
  return type.replaceAll('<', '(').replaceAll('>', ')');
}
