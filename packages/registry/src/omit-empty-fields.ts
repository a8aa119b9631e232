import type { z } from 'zod';
import { kubeMetaOf } from './kube-extensions.ts';
import { defOf, unwrap } from './schema-walk.ts';

/**
 * Where a schema's `omitEmpty` fields are: the fields to drop when empty at this level, and the plans of the fields,
 * list items and map values below that lead to more. Built once per schema, from the schema alone, so applying it
 * follows no deeper than the schema does.
 */
interface Plan {
  omit: string[];
  fields: [string, Plan][];
  element?: Plan;
  values?: Plan;
}

const plans = new WeakMap<z.core.$ZodType, Plan | null>();

/** The plan of `schema`, or null when nothing below it is omitEmpty (a schema met again inside its own walk: null). */
function planOf(schema: z.core.$ZodType, visiting: Set<z.core.$ZodType>): Plan | null {
  const known = plans.get(schema);
  if (known !== undefined) return known;
  if (visiting.has(schema)) return null;
  visiting.add(schema);
  const d = defOf(unwrap(schema));
  const plan: Plan = { omit: [], fields: [] };
  if (d.type === 'object')
    for (const [name, field] of Object.entries(d.shape ?? {})) {
      if (kubeMetaOf(field)?.omitEmpty) plan.omit.push(name);
      const sub = planOf(field, visiting);
      if (sub) plan.fields.push([name, sub]);
    }
  else if (d.type === 'array' && d.element) plan.element = planOf(d.element, visiting) ?? undefined;
  else if (d.type === 'record' && d.valueType) plan.values = planOf(d.valueType, visiting) ?? undefined;
  visiting.delete(schema);
  const found = plan.omit.length || plan.fields.length || plan.element || plan.values ? plan : null;
  plans.set(schema, found);
  return found;
}

/** Whether `v` is a map or list Go's omitempty leaves out: an empty object or array. */
export function isEmptyMapOrList(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v !== 'object' || v === null) return false;
  for (const _ in v) return false;
  return true;
}

function apply(plan: Plan, value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    if (plan.element) for (const item of value) apply(plan.element, item);
    return;
  }
  const o = value as Record<string, unknown>;
  if (plan.values) for (const k in o) apply(plan.values, o[k]);
  for (const [name, sub] of plan.fields) if (Object.hasOwn(o, name)) apply(sub, o[name]);
  for (const name of plan.omit) if (Object.hasOwn(o, name) && isEmptyMapOrList(o[name])) delete o[name];
}

/**
 * What Go's `omitempty` does to the fields `schema` marks omitEmpty: a function that removes them, where empty, from a
 * value the schema decoded (a private object, changed in place), or undefined when the schema marks none.
 */
export function omitEmptyFields(schema: z.core.$ZodType): ((value: Record<string, unknown>) => void) | undefined {
  const plan = planOf(schema, new Set());
  return plan ? (value) => apply(plan, value) : undefined;
}
