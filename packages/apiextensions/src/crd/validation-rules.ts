import { type FieldError, OMIT_VALUE } from '@kapi/apimachinery';
import type { CelType } from '@kapi/cel';
import type { JSONSchemaProps, ValidationRule } from '../schema/json-schema-props.ts';
import { newStructural } from '../schema/new-structural.ts';
import type { Structural } from '../schema/structural.ts';
import { schemaCelType } from '../validation/cel-decl-type.ts';
import { compileRules } from '../validation/cel-rules.ts';
import { validFieldPath } from './field-path.ts';

/** Go's `%#v` of an apiextensions.ValidationRule, as kube's field error prints it. */
function goRule(r: ValidationRule): string {
  const reason =
    r.reason === undefined
      ? '(*apiextensions.FieldValueErrorReason)(nil)'
      : `(*apiextensions.FieldValueErrorReason)(${JSON.stringify(r.reason)})`;
  const optional = r.optionalOldSelf === undefined ? '(*bool)(nil)' : `(*bool)(${r.optionalOldSelf})`;
  return `apiextensions.ValidationRule{Rule:${JSON.stringify(r.rule ?? '')}, Message:${JSON.stringify(r.message ?? '')}, MessageExpression:${JSON.stringify(r.messageExpression ?? '')}, Reason:${reason}, FieldPath:${JSON.stringify(r.fieldPath ?? '')}, OptionalOldSelf:${optional}}`;
}

let typeCounter = 0;

/**
 * The CEL step of kube's CRD schema validation (ValidateCustomResourceDefinitionOpenAPISchema with its
 * CELSchemaContext) for `x-kubernetes-validations` under properties, items and additionalProperties: each rule is
 * compiled with `self` and `oldSelf` typed by its node's structural schema (`compilation failed: …`, `cel expression
 * must evaluate to a bool`, `messageExpression compilation failed: …`, `messageExpression must evaluate to a string`);
 * a rule using oldSelf under a list that is not `x-kubernetes-list-type: map` is refused (`oldSelf cannot be used on
 * the uncorrelatable portion of the schema within …`), optionalOldSelf without oldSelf too, and a fieldPath must
 * name a field of the node. Called on a structural schema. kube's estimated-cost checks ("estimated rule cost
 * exceeds budget by factor of …") are not made: @kapi/cel has no cost estimator.
 */
export function compileValidationRules(schema: JSONSchemaProps, path: string): FieldError[] {
  let structural: Structural;
  try {
    structural = newStructural(schema);
  } catch {
    return []; // not structural: the schema checks say so
  }
  const errs: FieldError[] = [];
  const walk = (
    s: JSONSchemaProps | undefined | null,
    ss: Structural | undefined,
    p: string,
    inherited: CelType | undefined,
    uncorrelatable: string | undefined,
  ): void => {
    if (s == null || typeof s !== 'object' || !ss) return;
    const rules = s['x-kubernetes-validations'] ?? [];
    // the type the parent's type gives this node, else the node's own (kube's typeInfoAccessor, then converter)
    let type = inherited;
    if (rules.length > 0) {
      type ??= schemaCelType(ss, p === path || ss.xEmbeddedResource === true, `selfType${typeCounter++}`);
      if (type === undefined)
        errs.push({
          type: 'InternalError',
          field: `${p}.x-kubernetes-validations`,
          detail:
            'internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations',
        });
      else checkRules(rules, ss, type, p, uncorrelatable, errs);
    }
    const fieldType = (name: string) =>
      type !== undefined && typeof type !== 'string' && type.kind === 'object' ? type.fields[name] : undefined;
    for (const [k, v] of Object.entries(s.properties ?? {})) {
      walk(v, ss.properties?.get(k), `${p}.properties[${k}]`, fieldType(k), uncorrelatable);
    }
    if (s.items && !Array.isArray(s.items)) {
      const elem = type !== undefined && typeof type !== 'string' && type.kind === 'list' ? type.elem : undefined;
      // only map lists correlate items between an object and its update
      walk(s.items, ss.items, `${p}.items`, elem, uncorrelatable ?? (s['x-kubernetes-list-type'] === 'map' ? undefined : p));
    }
    if (typeof s.additionalProperties === 'object') {
      const value = type !== undefined && typeof type !== 'string' && type.kind === 'map' ? type.value : undefined;
      walk(s.additionalProperties, ss.additionalProperties?.structural, `${p}.additionalProperties`, value, uncorrelatable);
    }
  };
  walk(schema, structural, path, undefined, undefined);
  return errs;
}

function checkRules(
  rules: ValidationRule[],
  ss: Structural,
  type: CelType,
  p: string,
  uncorrelatable: string | undefined,
  errs: FieldError[],
): void {
  const at = (i: number, field: string) => `${p}.x-kubernetes-validations[${i}].${field}`;
  rules.forEach((rule, i) => {
    if (typeof rule.fieldPath === 'string' && rule.fieldPath.trim() !== '') {
      try {
        validFieldPath(rule.fieldPath, ss);
      } catch {
        errs.push({
          type: 'FieldValueInvalid',
          field: at(i, 'fieldPath'),
          badValue: rule.fieldPath,
          detail: 'fieldPath must be a valid path',
        });
      }
    }
  });
  compileRules(ss, rules, type).forEach((compiled, i) => {
    const rule = compiled.rule;
    if (compiled.error !== undefined)
      errs.push({ type: 'FieldValueInvalid', field: at(i, 'rule'), badValue: OMIT_VALUE, detail: `${goRule(rule)}: ${compiled.error}` });
    if (compiled.messageExpressionError !== undefined)
      errs.push({
        type: 'FieldValueInvalid',
        field: at(i, 'messageExpression'),
        badValue: OMIT_VALUE,
        detail: `${goRule(rule)}: ${compiled.messageExpressionError}`,
      });
    if (compiled.usesOldSelf) {
      if (uncorrelatable !== undefined)
        errs.push({
          type: 'FieldValueInvalid',
          field: at(i, 'rule'),
          badValue: rule.rule,
          detail: `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`,
        });
    } else if (rule.optionalOldSelf !== undefined && rule.optionalOldSelf !== null) {
      errs.push({
        type: 'FieldValueInvalid',
        field: at(i, 'optionalOldSelf'),
        badValue: rule.optionalOldSelf,
        detail: 'may not be set if oldSelf is not used in rule',
      });
    }
  });
}
