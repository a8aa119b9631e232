import { CelEnvironment, type CelType, optionalType, type Program } from '@kapi/cel';
import { validFieldPath } from '../crd/field-path.ts';
import type { ValidationRule } from '../schema/json-schema-props.ts';
import type { Structural } from '../schema/structural.ts';

/**
 * One x-kubernetes-validations rule compiled as kube's cel.Compile compiles it (schema/cel/compilation.go): `self`
 * typed by the node's schema, `oldSelf` too (an optional of it when the rule sets optionalOldSelf), and kube's
 * details when it does not compile. A rule left empty has neither program nor error (the CRD's validation refuses it).
 */
export interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program?: Program;
  /** kube's CompilationResult.Error detail: `compilation failed: …`, `cel expression must evaluate to a bool`. */
  readonly error?: string;
  /** The rule names `oldSelf`: a transition rule, evaluated only where an old value correlates. */
  readonly usesOldSelf: boolean;
  readonly messageExpression?: Program;
  /** `messageExpression compilation failed: …`, `messageExpression must evaluate to a string`. */
  readonly messageExpressionError?: string;
  /** The rule's fieldPath as field.Path prints it (`spec.foo[bar]`), when it is a valid path of the schema. */
  readonly fieldPath?: string;
}

/** Compiles every rule of one schema node against `type`, the CEL type of the node's values (schemaCelType). */
export function compileRules(schema: Structural, rules: readonly ValidationRule[], type: CelType): CompiledRule[] {
  const envs: { plain?: CelEnvironment; optional?: CelEnvironment } = {};
  const environment = (optional: boolean): CelEnvironment => {
    if (optional) {
      envs.optional ??= new CelEnvironment({ variables: { self: type, oldSelf: optionalType(type) } });
      return envs.optional;
    }
    envs.plain ??= new CelEnvironment({ variables: { self: type, oldSelf: type } });
    return envs.plain;
  };
  return rules.map((rule) => {
    try {
      return compileRule(schema, rule, environment);
    } catch (e) {
      // the CEL library refusing a declaration is kube's "unexpected compilation error", not a crash
      return { rule, usesOldSelf: false, error: `unexpected compilation error: ${(e as Error).message}` };
    }
  });
}

function compileRule(schema: Structural, rule: ValidationRule, environment: (optional: boolean) => CelEnvironment): CompiledRule {
  const text = typeof rule.rule === 'string' ? rule.rule : '';
  if (text.trim() === '') return { rule, usesOldSelf: false };
  const cel = environment(rule.optionalOldSelf === true);
  const compiled = cel.compile(text);
  if (compiled.kind === 'error') return { rule, usesOldSelf: false, error: `compilation failed: ${compiled.error.message}` };
  if (compiled.program.outputType !== 'bool') return { rule, usesOldSelf: false, error: 'cel expression must evaluate to a bool' };
  const result: { -readonly [K in keyof CompiledRule]: CompiledRule[K] } = {
    rule,
    program: compiled.program,
    usesOldSelf: compiled.program.references('oldSelf'),
  };
  if (typeof rule.messageExpression === 'string' && rule.messageExpression !== '') {
    const message = cel.compile(rule.messageExpression);
    if (message.kind === 'error') result.messageExpressionError = `messageExpression compilation failed: ${message.error.message}`;
    else if (message.program.outputType !== 'string') result.messageExpressionError = 'messageExpression must evaluate to a string';
    else result.messageExpression = message.program;
  }
  if (typeof rule.fieldPath === 'string' && rule.fieldPath !== '') {
    try {
      result.fieldPath = validFieldPath(rule.fieldPath, schema).path;
    } catch {
      // an invalid fieldPath is the CRD validation's to refuse; the error then names the rule's node
    }
  }
  return result;
}
