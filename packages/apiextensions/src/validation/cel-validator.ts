import type { FieldError } from '@kapi/apimachinery';
import { type CelType, COST_LIMIT_EXCEEDED_MESSAGE, PER_CALL_LIMIT } from '@kapi/cel';
import { child, index, key } from '../schema/field-path.ts';
import type { NestedValueValidation, Structural } from '../schema/structural.ts';
import { schemaCelType } from './cel-decl-type.ts';
import { type CompiledRule, compileRules } from './cel-rules.ts';
import { correlatedEqual, itemsByKey, mapKey } from './correlated-equal.ts';

/** kube's RuntimeCELCostBudget (k8s.io/apiserver/pkg/apis/cel/config.go): what all rules may cost on one object. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;

/** kube's MaxEvaluatedMessageExpressionSizeBytes: a longer message falls back to the rule's message. */
export const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;

const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

interface Node {
  readonly schema: Structural;
  readonly rules: readonly CompiledRule[];
  readonly items?: Node;
  readonly properties?: ReadonlyMap<string, Node>;
  readonly additionalProperties?: Node;
  /** The rules under the node's allOf entries (and their properties, items…), judged on the node's values. */
  readonly allOf?: readonly Node[];
}

/** Where rules are read from: the node's structural schema, or one of its allOf entries (kube's nestedToStructural). */
type RuleSource = Structural | NestedValueValidation;

function isNested(v: RuleSource): v is NestedValueValidation {
  return 'forbiddenGenerics' in v;
}

function sourceItems(v: RuleSource): RuleSource | undefined {
  return v.items;
}

function sourceAdditional(v: RuleSource): RuleSource | undefined {
  return isNested(v) ? v.additionalProperties : v.additionalProperties?.structural;
}

function sourceAllOf(v: RuleSource): readonly NestedValueValidation[] {
  return (isNested(v) ? v.allOf : v.valueValidation?.allOf) ?? [];
}

export interface CelValidateOptions {
  /** The old object on update: transition rules see it as `oldSelf`, and unchanged values keep their errors away. */
  readonly old?: unknown;
  /** The cost all rules may spend (RUNTIME_CEL_COST_BUDGET unless given). */
  readonly budget?: number;
}

/**
 * The x-kubernetes-validations rules of a structural schema, compiled once (kube's cel.NewValidator): a tree that
 * follows the schema to every node with rules, each rule compiled with `self` typed by its node. `validate` runs
 * them as kube's custom resource strategy does on create and update: depth first, rules of a node before its
 * children, transition rules only where the old value correlates (object properties, map entries, items of
 * `x-kubernetes-list-type: map` lists by their keys), each rule under kube's per-call cost limit and all of them
 * under one budget. On update an error of a rule without oldSelf is dropped when the value it judged is unchanged
 * (kube's CRDValidationRatcheting, which makes it a warning).
 */
export class CelValidator {
  readonly #root: Node;
  readonly #perCallLimit: number;

  private constructor(root: Node, perCallLimit: number) {
    this.#root = root;
    this.#perCallLimit = perCallLimit;
  }

  /** undefined when the schema has no rules. `perCallLimit` is for tests (kube's PerCallLimit otherwise). */
  static compile(schema: Structural, isResourceRoot = true, perCallLimit = PER_CALL_LIMIT): CelValidator | undefined {
    if (!hasRules(schema)) return undefined;
    const type = schemaCelType(schema, isResourceRoot, `selfType${typeCounter++}`);
    const root = type === undefined ? undefined : buildNode(schema, schema, type);
    return root ? new CelValidator(root, perCallLimit) : undefined;
  }

  /** FieldErrors under root-relative paths (`spec.items[0]`; the root itself is kube's nil path `<nil>`). */
  validate(obj: unknown, opts: CelValidateOptions = {}): { errors: FieldError[]; remainingBudget: number } {
    const run = new Run(this.#perCallLimit, opts.budget ?? RUNTIME_CEL_COST_BUDGET);
    const anchor = opts.old === undefined ? undefined : new Correlation(this.#root.schema, obj, opts.old);
    run.node(this.#root, '', obj, opts.old, anchor);
    return { errors: run.errors, remainingBudget: run.budget };
  }
}

let typeCounter = 0;

function hasRules(s: Structural | undefined): boolean {
  if (!s) return false;
  if ((s.xValidations?.length ?? 0) > 0) return true;
  if (hasRules(s.items) || hasRules(s.additionalProperties?.structural)) return true;
  for (const p of s.properties?.values() ?? []) if (hasRules(p)) return true;
  return false;
}

/**
 * The node for the rules of `v` on values of schema `s` (kube's validator(validationSchema, nodeSchema, …)): its own
 * rules, its allOf entries' and the children that lead to rules; children whose values rules cannot see are left out,
 * as kube does. undefined when there is nothing to run.
 */
function buildNode(v: RuleSource, s: Structural, type: CelType): Node | undefined {
  const rules = v.xValidations?.length ? compileRules(s, v.xValidations, type) : [];
  const node: { -readonly [K in keyof Node]: Node[K] } = { schema: s, rules };
  if (typeof type !== 'string') {
    const items = sourceItems(v);
    if (items && s.items && type.kind === 'list') node.items = buildNode(items, s.items, type.elem);
    const additional = sourceAdditional(v);
    const nodeAdditional = s.additionalProperties?.structural;
    if (additional && nodeAdditional && type.kind === 'map') node.additionalProperties = buildNode(additional, nodeAdditional, type.value);
    if (v.properties && s.properties && type.kind === 'object') {
      const properties = new Map<string, Node>();
      for (const [name, sub] of v.properties as ReadonlyMap<string, RuleSource>) {
        const field = type.fields[name];
        const nodeProperty = s.properties.get(name);
        // rules may only sit on the structural spine
        const built = field === undefined || !nodeProperty ? undefined : buildNode(sub, nodeProperty, field);
        if (built) properties.set(name, built);
      }
      if (properties.size > 0) node.properties = properties;
    }
  }
  const allOf = sourceAllOf(v).flatMap((entry) => buildNode(entry, s, type) ?? []);
  if (allOf.length > 0) node.allOf = allOf;
  return rules.length > 0 || node.items || node.additionalProperties || node.properties || node.allOf ? node : undefined;
}

/**
 * The nearest value that correlates with an old one (kube's CorrelatedObject for ratcheting): errors below it are
 * ratcheted when it did not change. Compared lazily, once.
 */
class Correlation {
  readonly #schema: Structural;
  readonly #value: unknown;
  readonly #old: unknown;
  #unchanged: boolean | undefined;

  constructor(schema: Structural, value: unknown, old: unknown) {
    this.#schema = schema;
    this.#value = value;
    this.#old = old;
  }

  unchanged(): boolean {
    this.#unchanged ??= correlatedEqual(this.#schema, this.#value, this.#old);
    return this.#unchanged;
  }
}

function ruleErrorString(rule: CompiledRule['rule']): string {
  const message = typeof rule.message === 'string' ? rule.message : '';
  return message.length > 0 ? message.trim() : String(rule.rule).trim();
}

function ruleMessageOrDefault(rule: CompiledRule['rule']): string {
  const message = typeof rule.message === 'string' ? rule.message : '';
  return message.length === 0 ? `failed rule: ${ruleErrorString(rule)}` : message.trim();
}

function fieldPath(path: string): string {
  return path === '' ? '<nil>' : path;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One validation: the errors so far and the budget left (negative once rules stopped). */
class Run {
  readonly errors: FieldError[] = [];
  budget: number;
  readonly #perCallLimit: number;

  constructor(perCallLimit: number, budget: number) {
    this.#perCallLimit = perCallLimit;
    this.budget = budget;
  }

  node(n: Node, path: string, obj: unknown, old: unknown, anchor: Correlation | undefined): void {
    if (obj === null || obj === undefined) return;
    this.#expressions(n, path, obj, old, anchor);
    if (this.budget < 0) return;
    for (const entry of n.allOf ?? []) {
      this.node(entry, path, obj, old, anchor);
      if (this.budget < 0) return;
    }
    if (Array.isArray(obj)) {
      if (!n.items) return;
      const olds = correlatableItems(n.schema, old);
      for (let i = 0; i < obj.length; i++) {
        const oldItem = olds?.(obj[i]);
        this.node(
          n.items,
          index(path, i),
          obj[i],
          oldItem,
          oldItem === undefined ? anchor : new Correlation(n.items.schema, obj[i], oldItem),
        );
        if (this.budget < 0) return;
      }
    } else if (isRecord(obj)) {
      const oldMap = isRecord(old) ? old : undefined;
      for (const k of Object.keys(obj)) {
        const sub = n.additionalProperties ?? n.properties?.get(k);
        if (!sub) continue;
        const oldV = oldMap && Object.hasOwn(oldMap, k) ? oldMap[k] : undefined;
        const at = n.additionalProperties ? key(path, k) : child(path, k);
        this.node(sub, at, obj[k], oldV, oldV === undefined ? anchor : new Correlation(sub.schema, obj[k], oldV));
        if (this.budget < 0) return;
      }
    }
  }

  #expressions(n: Node, path: string, obj: unknown, old: unknown, anchor: Correlation | undefined): void {
    if (n.rules.length === 0) return;
    const type = n.schema.type ?? '';
    const at = fieldPath(path);
    if (this.budget <= 0) {
      this.errors.push({ type: 'FieldValueInvalid', field: at, badValue: type, detail: OUT_OF_BUDGET });
      this.budget = -1;
      return;
    }
    const hasOld = old !== null && old !== undefined;
    for (const compiled of n.rules) {
      const { rule } = compiled;
      if (compiled.error !== undefined) {
        this.errors.push({ type: 'FieldValueInvalid', field: at, badValue: type, detail: `rule compile error: ${compiled.error}` });
        continue;
      }
      const program = compiled.program;
      if (!program) continue;
      if (compiled.usesOldSelf && !hasOld && !rule.optionalOldSelf) continue;
      const activation = hasOld ? { self: obj, oldSelf: old } : { self: obj };
      const result = program.evaluate(activation, { costLimit: this.#perCallLimit });
      if (result.cost > this.budget) {
        this.errors.push({ type: 'FieldValueInvalid', field: at, badValue: type, detail: OUT_OF_BUDGET });
        this.budget = -1;
        return;
      }
      this.budget -= result.cost;
      if (result.kind === 'error') {
        const message = result.error.message;
        if (result.error.reason === 'CostLimitExceeded' || message.startsWith(COST_LIMIT_EXCEEDED_MESSAGE)) {
          this.errors.push({
            type: 'FieldValueInvalid',
            field: at,
            badValue: type,
            detail: `'${message}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`,
          });
          this.budget = -1;
          return;
        }
        const detail = message.startsWith('no such overload')
          ? `'${message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`
          : `${message} evaluating rule: ${ruleErrorString(rule)}`;
        this.errors.push({ type: 'FieldValueInvalid', field: at, badValue: type, detail });
        continue;
      }
      if (result.value === true) continue;
      const errPath = fieldPath(compiled.fieldPath ? child(path, compiled.fieldPath) : path);
      // kube's ratcheting: an unchanged value keeps passing the rules it failed before (transition rules excepted)
      const ratchet = !compiled.usesOldSelf && anchor !== undefined && anchor.unchanged();
      const add = (e: FieldError) => {
        if (!ratchet) this.errors.push(e);
      };
      let detail: string | undefined;
      if (compiled.messageExpression) {
        const evaluated = compiled.messageExpression.evaluate(activation, { costLimit: this.#perCallLimit });
        if (evaluated.cost > this.budget) {
          add({
            type: 'FieldValueInvalid',
            field: errPath,
            badValue: type,
            detail: 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run',
          });
          this.budget = -1;
          return;
        }
        if (evaluated.kind === 'error' && evaluated.error.reason === 'CostLimitExceeded') {
          add({
            type: 'FieldValueInvalid',
            field: errPath,
            badValue: type,
            detail: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(rule.messageExpression)}`,
          });
          this.budget = -1;
          return;
        }
        this.budget -= evaluated.cost;
        // an error, a non-string, an empty, multi-line or too long message: the rule's message instead
        if (evaluated.kind === 'value' && typeof evaluated.value === 'string') {
          const message = evaluated.value.trim();
          if (message !== '' && !/\n/.test(message) && Buffer.byteLength(message) <= MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES)
            detail = message;
        }
      }
      detail ??= ruleMessageOrDefault(rule);
      add(fieldErrorForReason(errPath, type, detail, rule.reason));
    }
  }
}

/** kube's fieldErrorForReason: the rule's reason picks the FieldError type (an unknown reason is Invalid). */
function fieldErrorForReason(field: string, badValue: unknown, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return { type: 'FieldValueForbidden', field, detail };
    case 'FieldValueRequired':
      return { type: 'FieldValueRequired', field, detail };
    case 'FieldValueDuplicate':
      return { type: 'FieldValueDuplicate', field, badValue };
    default:
      return { type: 'FieldValueInvalid', field, badValue, detail };
  }
}

/**
 * The old item each new item of a `x-kubernetes-list-type: map` list correlates with (same key values); undefined
 * for other lists, whose items do not correlate (kube's makeMapList).
 */
function correlatableItems(s: Structural, old: unknown): ((item: unknown) => unknown) | undefined {
  if (s.xListType !== 'map' || !Array.isArray(old)) return undefined;
  const keys = s.xListMapKeys ?? [];
  const byKey = itemsByKey(old, keys);
  return (item) => {
    const k = mapKey(item, keys);
    return k === undefined ? undefined : byKey.get(k);
  };
}
