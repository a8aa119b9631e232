import { type FieldError, OMIT_VALUE } from '@kapi/apimachinery';
import { CelEnvironment } from '@kapi/cel';
import type { JSONSchemaProps, ValidationRule } from '../schema/json-schema-props.ts';

/**
 * The compile step of kube's CRD validation for `x-kubernetes-validations` rules (cel.Compile as
 * ValidateCustomResourceDefinitionOpenAPISchema calls it): every rule under properties, items and
 * additionalProperties must parse and type-check, and must give a bool (`compilation failed: …`, `cel expression must
 * evaluate to a bool`), and a messageExpression must compile and give a string. `self` and `oldSelf` are declared `dyn` here, not typed from the schema as kube types them, so
 * a rule kube refuses for its types alone (`self.replicas + 'x'`) is not refused yet; syntax errors and undeclared
 * references are. Cost estimates and the oldSelf placement rules are not checked.
 */
let env: CelEnvironment | undefined;

/** Go's `%#v` of an apiextensions.ValidationRule, as kube's field error prints it. */
function goRule(r: ValidationRule): string {
  const reason =
    r.reason === undefined
      ? '(*apiextensions.FieldValueErrorReason)(nil)'
      : `(*apiextensions.FieldValueErrorReason)(${JSON.stringify(r.reason)})`;
  const optional = r.optionalOldSelf === undefined ? '(*bool)(nil)' : `(*bool)(${r.optionalOldSelf})`;
  return `apiextensions.ValidationRule{Rule:${JSON.stringify(r.rule ?? '')}, Message:${JSON.stringify(r.message ?? '')}, MessageExpression:${JSON.stringify(r.messageExpression ?? '')}, Reason:${reason}, FieldPath:${JSON.stringify(r.fieldPath ?? '')}, OptionalOldSelf:${optional}}`;
}

export function compileValidationRules(schema: JSONSchemaProps, path: string): FieldError[] {
  env ??= new CelEnvironment({ variables: { self: 'dyn', oldSelf: 'dyn' } });
  const cel = env;
  const errs: FieldError[] = [];
  const walk = (s: JSONSchemaProps | undefined | null, p: string): void => {
    if (s == null || typeof s !== 'object') return;
    (s['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
      const text = rule.rule?.trim() ?? '';
      if (text === '') return; // "rule is not specified" is a schema rule
      const at = `${p}.x-kubernetes-validations[${i}].rule`;
      const compiled = cel.compile(rule.rule);
      let detail: string | undefined;
      if (compiled.kind === 'error') detail = `compilation failed: ${compiled.error.message}`;
      else if (compiled.program.outputType !== 'bool' && compiled.program.outputType !== 'dyn')
        detail = 'cel expression must evaluate to a bool';
      if (detail) errs.push({ type: 'FieldValueInvalid', field: at, badValue: OMIT_VALUE, detail: `${goRule(rule)}: ${detail}` });
      const messageExpression = rule.messageExpression?.trim() ?? '';
      if (messageExpression !== '') {
        const message = cel.compile(rule.messageExpression as string);
        let why: string | undefined;
        if (message.kind === 'error') why = `messageExpression compilation failed: ${message.error.message}`;
        else if (message.program.outputType !== 'string' && message.program.outputType !== 'dyn')
          why = 'messageExpression must evaluate to a string';
        if (why)
          errs.push({
            type: 'FieldValueInvalid',
            field: `${p}.x-kubernetes-validations[${i}].messageExpression`,
            badValue: OMIT_VALUE,
            detail: `${goRule(rule)}: ${why}`,
          });
      }
    });
    for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${p}.properties[${k}]`);
    if (s.items && !Array.isArray(s.items)) walk(s.items, `${p}.items`);
    if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${p}.additionalProperties`);
  };
  walk(schema, path);
  return errs;
}
