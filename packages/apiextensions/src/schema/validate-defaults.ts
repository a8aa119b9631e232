import { copyJson, type FieldError, fieldErrors, fieldErrorsMessage, isJsonObject, jsonEqual, setOwn } from '@kapi/apimachinery';
import { validateEmbeddedResources } from './embedded-object-meta.ts';
import { child, key } from './field-path.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { prune } from './pruning.ts';
import type { Structural } from './structural.ts';
import { toJSONSchemaProps } from './to-json-schema-props.ts';

/**
 * Checks a value against the schema it sits in (types, formats, bounds, …), as kube's ValidateCustomResource does
 * with the structural schema turned back into an OpenAPI schema (ToKubeOpenAPI): `schema` is that schema.
 */
export type ValueValidator = (path: string, value: unknown, schema: JSONSchemaProps) => FieldError[];

export interface ValidateDefaultsOptions {
  /** The schema is a resource's (a CRD version's openAPIV3Schema): it is treated as an embedded resource. */
  isResourceRoot?: boolean;
  /** Refuse defaults pruning would change (kube requires it for apiextensions.k8s.io/v1). Default true. */
  requirePrunedDefaults?: boolean;
  /** Checks each default against the schema it sits in; without it only the pruning rule is checked. */
  validateValue?: ValueValidator;
}

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * ValidateDefaults (defaulting/validation.go): every `default` in `s`, found through properties and items (not
 * additionalProperties, where defaults are refused), must be pruned already (`must not have unknown fields`) and
 * valid against the schema it sits in. A default inside an embedded resource's apiVersion, kind or metadata is not
 * pruned there (those are kept whole). `path` is the schema's path, e.g.
 * `spec.versions[0].schema.openAPIV3Schema`; errors name `….default`. A default that is (or holds) an embedded
 * resource must have a valid apiVersion, kind and metadata ({@link validateEmbeddedResources}) before its value is
 * checked. A default inside an embedded resource's apiVersion, kind or metadata is checked inside the object it would
 * be part of (`must result in valid metadata: …`).
 */
export function validateDefaults(path: string, s: Structural, opts: ValidateDefaultsOptions = {}): FieldError[] {
  const requirePruned = opts.requirePrunedDefaults ?? true;
  const schema = opts.isResourceRoot && !s.xEmbeddedResource ? { ...s, xEmbeddedResource: true } : s;
  const errs: FieldError[] = [];
  // `around` is the way from the nearest embedded resource (`root`) down to `sch`: a key, or an item of a list.
  const walk = (sch: Structural, p: string, insideMeta: boolean, root: Structural, around: Step[]): void => {
    const inMeta = sch.xEmbeddedResource ? false : insideMeta;
    const [rootSchema, steps] = sch.xEmbeddedResource ? [sch, []] : [root, around];
    if (sch.default !== undefined) {
      const at = child(p, 'default');
      if (inMeta) {
        // A default inside apiVersion, kind or metadata is judged inside the object it would be part of.
        const metaErrs = validateEmbeddedResources('', surroundingObject(sch.default, steps), rootSchema, true);
        if (metaErrs.length > 0)
          errs.push(fieldErrors.invalid(at, sch.default, `must result in valid metadata: ${fieldErrorsMessage(metaErrs)}`));
        else if (opts.validateValue) errs.push(...opts.validateValue(at, sch.default, toJSONSchemaProps(sch)));
      } else {
        if (requirePruned) {
          const pruned = copyJson(sch.default);
          prune(pruned, sch, { isResourceRoot: sch.xEmbeddedResource });
          if (!jsonEqual(pruned, sch.default)) errs.push(fieldErrors.invalid(at, sch.default, 'must not have unknown fields'));
        }
        // kube checks an embedded resource's apiVersion, kind and metadata first, and the value only when they pass.
        const metaErrs = validateEmbeddedResources(at, sch.default, sch, sch.xEmbeddedResource === true);
        if (metaErrs.length > 0) errs.push(...metaErrs);
        else if (opts.validateValue) errs.push(...opts.validateValue(at, sch.default, toJSONSchemaProps(sch)));
      }
    }
    if (sch.items !== undefined) walk(sch.items, child(p, 'items'), inMeta, rootSchema, [...steps, ITEM]);
    for (const [k, prop] of sch.properties ?? []) {
      const meta = inMeta || (sch.xEmbeddedResource === true && META_FIELDS.has(k));
      walk(prop, key(child(p, 'properties'), k), meta, rootSchema, [...steps, k]);
    }
  };
  walk(schema, path, false, schema, []);
  return errs;
}

/** A key of an object, or (ITEM) the one item of a list. */
type Step = string | typeof ITEM;
const ITEM: unique symbol = Symbol('item');

/**
 * SurroundingObjectFunc: the object an embedded resource would be with `focus` at `steps` (a list holding it as its
 * only item where a step is ITEM), its apiVersion and kind set to kube's `validation/v1` `Validation`.
 */
function surroundingObject(focus: unknown, steps: Step[]): unknown {
  let v = copyJson(focus);
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i] as Step;
    if (step === ITEM) v = [v];
    else {
      const o = {};
      setOwn(o, step, v);
      v = o;
    }
  }
  // A default of the embedded root itself is never inside its metadata, so `v` is an object here.
  if (isJsonObject(v)) {
    v.kind = 'Validation';
    v.apiVersion = 'validation/v1';
  }
  return v;
}
