import type { FieldError } from '@kapi/apimachinery';
import type { JSONSchema } from './openapi.ts';
import type { PatchMeta } from './strategic-merge/patch-meta.ts';

/** How one validation runs. */
export interface VersionValidateOptions {
  /** Check list-set/map duplicates (an update ratchets it off when the old object had some). */
  listSetsAndMaps: boolean;
  /**
   * The whole object `body` is the rest of: rules that read `apiVersion`, `kind` and `metadata` (CRD
   * x-kubernetes-validations at the root) see them here.
   */
  object?: Record<string, unknown>;
  /** On update, the whole old object (stored version): transition rules compare against it. */
  old?: Record<string, unknown>;
}

/**
 * What the Store, decoding, OpenAPI and strategic merge patch need of one version's schema, so that a kind
 * defined in TypeScript (zod, zodVersionSchema) and a CustomResourceDefinition (a structural schema) are served
 * alike. It covers the fields beside apiVersion, kind and metadata: kapi checks those three the same for every kind.
 */
export interface VersionSchema {
  /**
   * Validates `body` and returns its FieldErrors in kube's order (the schema's, then with `listSetsAndMaps` the
   * list-set/map duplicates, found on the defaulted value); without errors also the value as stored: defaults
   * applied, undeclared fields pruned (kept where the schema preserves unknown fields).
   */
  validate(body: Record<string, unknown>, opts: VersionValidateOptions): { errors: FieldError[]; value?: Record<string, unknown> };
  /** The list-set/map duplicate errors alone (update ratchets them off when the old object had some). */
  listSetAndMapErrors(body: Record<string, unknown>): FieldError[];
  /** The body as decoding leaves it (defaults applied, undeclared fields pruned), or undefined when it does not fit the schema. */
  decode(body: Record<string, unknown>): Record<string, unknown> | undefined;
  /**
   * What kube's decoder refuses in a body that does not fit the schema: fields whose values are of another type than
   * the kind's Go types hold (a built-in kind's; a custom resource decodes into maps and leaves its schema to
   * validation). Asked only of a body decode found not to fit.
   */
  decodeErrors?(body: Record<string, unknown>): FieldError[];
  /**
   * Go's decoding of JSON null (a built-in kind's): a field sent as null keeps its zero value, so the member is removed
   * from `body` (a private copy, changed in place) where the kind's field cannot hold null; true when one was. Asked
   * only of a body decode found not to fit. A custom resource decodes into maps: its schema says what a null becomes
   * (pruned, defaulted, or kept where nullable).
   */
  decodeNulls?(body: Record<string, unknown>): boolean;
  /** Paths (`spec.foo`, `spec.items[0].bar`) that `body` has and the schema does not declare: fieldValidation's unknown fields. */
  unknownFields(body: Record<string, unknown>): string[];
  /** The OpenAPI v3 schema of the body (an object schema of its fields, with x-kubernetes-* extensions); shared, not to be changed. */
  openAPI(): JSONSchema;
  /** The strategic-merge patch metadata of the body. */
  patchMeta(): PatchMeta;
}
