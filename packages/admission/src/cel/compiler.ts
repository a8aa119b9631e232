import { CelEnvironment, type CelType, objectType, type Program } from '@kapi/cel';
import { ADMISSION_REQUEST_TYPE, NAMESPACE_TYPE } from './request.ts';

/** A compiled admission expression: its program, or kube's error text (`compilation failed: ERROR: <input>:1:…`). */
export interface CompiledExpression {
  readonly expression: string;
  readonly program?: Program;
  readonly error?: string;
  /** The checked result type, in cel-go's spelling (`bool`, `list(int)`). */
  readonly outputType?: string;
}

/** A named variable (a policy's `spec.variables`), compiled in order: each may use the ones before it. */
export interface CompiledVariable extends CompiledExpression {
  readonly name: string;
}

export interface AdmissionCompilerOptions {
  /** The policy has a paramKind: `params` is declared. */
  readonly params?: boolean;
  /** `spec.variables`, in order. */
  readonly variables?: readonly { readonly name: string; readonly expression: string }[];
  /**
   * Types to check `object`/`oldObject` and `params` against (type checking against the kind's schema); dyn when
   * left out, as kube compiles policies for admission.
   */
  readonly objectType?: CelType;
  readonly paramsType?: CelType;
}

/** kube's `OptionalVariableDeclarations`: which optional variables an expression may use. */
export interface ExpressionOptions {
  /** `authorizer` and `authorizer.requestResource` declared (kube leaves it out of messageExpression). */
  readonly authorizer?: boolean;
}

/** The CEL types kube keeps when declaring a variable's type (convertCelTypeToDeclType); anything else is dyn. */
const KEPT = new Set(['bool', 'bytes', 'double', 'google.protobuf.Duration', 'int', 'null', 'string', 'google.protobuf.Timestamp', 'uint']);

function declaredType(outputType: string | undefined): string {
  if (outputType === undefined) return 'dyn';
  if (KEPT.has(outputType)) return outputType;
  const list = /^list<(.+)>$/.exec(outputType);
  if (list) return `list<${declaredType(list[1])}>`;
  const map = /^map<([^,]+),\s*(.+)>$/.exec(outputType);
  if (map) return `map<${declaredType(map[1])}, ${declaredType(map[2])}>`;
  return 'dyn';
}

/** `list<int>` → `list(int)`, `null` → `null_type`: types as cel-go prints them (kube's error texts). */
export function celGoTypeName(type: string): string {
  if (type === 'list') return 'list(dyn)';
  if (type === 'map') return 'map(dyn, dyn)';
  return type
    .replaceAll('<', '(')
    .replaceAll('>', ')')
    .replace(/\bnull\b/g, 'null_type');
}

function baseVariables(
  params: boolean,
  authorizer: boolean,
  types: Pick<AdmissionCompilerOptions, 'objectType' | 'paramsType'> = {},
): Record<string, CelType> {
  const vars: Record<string, CelType> = {
    object: types.objectType ?? 'dyn',
    oldObject: types.objectType ?? 'dyn',
    request: ADMISSION_REQUEST_TYPE,
    namespaceObject: NAMESPACE_TYPE,
  };
  if (params) vars.params = types.paramsType ?? 'dyn';
  if (authorizer) vars.authorizer = 'kubernetes.authorization.Authorizer';
  return vars;
}

/**
 * kube's CompositedCompiler for admission CEL (k8s.io/apiserver/pkg/admission/plugin/cel): declares object,
 * oldObject, request (typed as AdmissionRequest), namespaceObject (typed as Namespace), params (with a paramKind),
 * authorizer (when asked) and `variables`, whose fields are the variables compiled so far with their checked types.
 * Each expression is checked against the typed `variables` (a misspelled variable fails to compile) and run with
 * `variables` as a lazily evaluated map.
 */
export class AdmissionCompiler {
  readonly params: boolean;
  readonly variables: readonly CompiledVariable[];
  readonly #types: Pick<AdmissionCompilerOptions, 'objectType' | 'paramsType'>;
  readonly #checkEnvs = new Map<boolean, CelEnvironment>();
  readonly #runEnvs = new Map<boolean, CelEnvironment>();
  readonly #variableTypes: Record<string, string> = {};

  constructor(options: AdmissionCompilerOptions = {}) {
    this.params = options.params === true;
    this.#types = {
      ...(options.objectType ? { objectType: options.objectType } : {}),
      ...(options.paramsType ? { paramsType: options.paramsType } : {}),
    };
    const variables: CompiledVariable[] = [];
    for (const v of options.variables ?? []) {
      // variables may use the authorizer, as validations do
      const compiled = this.compile(v.expression, ['dyn'], { authorizer: true });
      variables.push({ name: v.name, ...compiled });
      this.#variableTypes[v.name] = compiled.program ? declaredType(compiled.program.outputType) : 'dyn';
      this.#checkEnvs.clear();
    }
    this.variables = variables;
  }

  /**
   * Compiles one expression that must evaluate to one of `returnTypes` (cel-go names; `dyn` accepts any), with
   * kube's errors: `compilation failed: …`, `must evaluate to bool but got int`.
   */
  compile(expression: string, returnTypes: readonly string[], options: ExpressionOptions = {}): CompiledExpression {
    const authorizer = options.authorizer === true;
    const checked = this.#checkEnv(authorizer).compile(expression);
    if (checked.kind === 'error') return { expression, error: `compilation failed: ${checked.error.message}` };
    const outputType = celGoTypeName(checked.program.outputType);
    if (!returnTypes.includes('dyn') && !returnTypes.includes(outputType)) {
      const reason =
        returnTypes.length === 1
          ? `must evaluate to ${returnTypes[0]} but got ${outputType}`
          : `must evaluate to one of [${returnTypes.join(' ')}] but got ${outputType}`;
      return { expression, error: reason, outputType };
    }
    const run = this.#runEnv(authorizer).compile(expression);
    if (run.kind === 'error') return { expression, error: `compilation failed: ${run.error.message}` };
    return { expression, program: run.program, outputType };
  }

  /**
   * Type-checks an expression without building its program or requiring a result type: the issues as cel-go prints
   * them (`ERROR: <input>:1:8: undefined field 'replica'` and the source excerpt), or undefined (kube's TypeChecker).
   */
  check(expression: string): string | undefined {
    const checked = this.#checkEnv(true).compile(expression);
    return checked.kind === 'error' ? checked.error.message : undefined;
  }

  #checkEnv(authorizer: boolean): CelEnvironment {
    let env = this.#checkEnvs.get(authorizer);
    if (!env) {
      const fields = { ...this.#variableTypes };
      try {
        env = new CelEnvironment({
          variables: { ...baseVariables(this.params, authorizer, this.#types), variables: objectType('kubernetes.variables', fields) },
        });
      } catch {
        // a type the environment cannot declare: check variables' uses as dyn
        env = new CelEnvironment({
          variables: {
            ...baseVariables(this.params, authorizer, this.#types),
            variables: objectType('kubernetes.variables', Object.fromEntries(Object.keys(fields).map((k) => [k, 'dyn']))),
          },
        });
      }
      this.#checkEnvs.set(authorizer, env);
    }
    return env;
  }

  #runEnv(authorizer: boolean): CelEnvironment {
    let env = this.#runEnvs.get(authorizer);
    if (!env) {
      env = new CelEnvironment({ variables: { ...baseVariables(this.params, authorizer), variables: 'dyn' } });
      this.#runEnvs.set(authorizer, env);
    }
    return env;
  }
}
