import type { FieldError, KubeObject } from '@kapi/apimachinery';
import type { z } from 'zod';

/**
 * Runs a strategy step (defaulting or kube's validation, written against the Go types) on a body that may not have
 * the kind's shape: `webhooks: "x"`, a webhook `null`, a number where an expression string goes. kube never gets
 * that far (its decoder refuses the body); here the store reports the schema's type errors (422) next to the
 * strategy's, so a step that throws on such a body is skipped and the type errors alone refuse it. A step that
 * throws on a body of the right shape is a bug of ours and still throws.
 */
export function guardShape<R>(schema: z.ZodType, obj: unknown, step: () => R, fallback: R): R {
  try {
    return step();
  } catch (err) {
    if (!schema.safeParse(obj).success) return fallback;
    throw err;
  }
}

/** guardShape for a validation step: no errors of its own when the schema already refuses the body. */
export function guardedValidation(schema: z.ZodType, obj: KubeObject, validate: () => FieldError[]): FieldError[] {
  return guardShape(schema, obj, validate, []);
}
