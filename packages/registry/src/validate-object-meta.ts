import { type FieldError, fieldErrors, isDNS1123Label, isQualifiedName, isValidLabelValue, nameIsDNSSubdomain } from '@kapi/apimachinery';

/** Validates a name (or, with `prefix`, a generateName): Kubernetes' ValidateNameFunc. */
export type NameValidator = (name: string, prefix: boolean) => string[];

export interface ObjectMetaRules {
  namespaced: boolean;
  /** Defaults to DNS-1123 subdomain names, as most kinds use. */
  validateName?: NameValidator;
}

/** Annotations may hold at most 256 KiB, keys and values together (TotalAnnotationSizeLimitB). */
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
const ORPHAN_FINALIZER = 'orphan';
const FOREGROUND_FINALIZER = 'foregroundDeletion';

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

function stringMap(errs: FieldError[], field: string, v: unknown): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string')) {
    errs.push(fieldErrors.typeInvalid(field, v, 'must be a map of string keys to string values'));
    return {};
  }
  return v as Record<string, string>;
}

function optionalString(errs: FieldError[], field: string, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') {
    errs.push(fieldErrors.typeInvalid(field, v, 'must be a string'));
    return '';
  }
  return v;
}

/**
 * ObjectMeta validation on create and update (apimachinery's ValidateObjectMeta), with Kubernetes' paths and
 * messages. A name is required: the Store turns generateName into a name before it validates.
 */
export function validateObjectMeta(metadata: unknown, rules: ObjectMetaRules): FieldError[] {
  const errs: FieldError[] = [];
  if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))) {
    errs.push(fieldErrors.typeInvalid('metadata', metadata, 'must be an object'));
    metadata = {};
  }
  const m = (metadata ?? {}) as Record<string, unknown>;
  const validateName = rules.validateName ?? nameIsDNSSubdomain;

  const generateName = optionalString(errs, 'metadata.generateName', m.generateName);
  if (generateName)
    for (const msg of validateName(generateName, true)) errs.push(fieldErrors.invalid('metadata.generateName', generateName, msg));
  const name = optionalString(errs, 'metadata.name', m.name);
  if (!name) errs.push(fieldErrors.required('metadata.name', 'name or generateName is required'));
  else for (const msg of validateName(name, false)) errs.push(fieldErrors.invalid('metadata.name', name, msg));

  const namespace = optionalString(errs, 'metadata.namespace', m.namespace);
  if (rules.namespaced) {
    if (!namespace) errs.push(fieldErrors.required('metadata.namespace'));
    else for (const msg of isDNS1123Label(namespace)) errs.push(fieldErrors.invalid('metadata.namespace', namespace, msg));
  } else if (namespace) {
    errs.push(fieldErrors.forbidden('metadata.namespace', 'not allowed on this type'));
  }

  if (typeof m.generation === 'number' && m.generation < 0)
    errs.push(fieldErrors.invalid('metadata.generation', m.generation, 'must be greater than or equal to 0'));

  // Kubernetes reports label and annotation errors on the map itself, naming the bad key or value.
  for (const [k, v] of Object.entries(stringMap(errs, 'metadata.labels', m.labels))) {
    for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid('metadata.labels', k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid('metadata.labels', v, msg));
  }
  let annotationBytes = 0;
  for (const [k, v] of Object.entries(stringMap(errs, 'metadata.annotations', m.annotations))) {
    // Annotation keys are qualified names in any case.
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid('metadata.annotations', k, msg));
    annotationBytes += byteLength(k) + byteLength(v);
  }
  if (annotationBytes > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldErrors.tooLong('metadata.annotations', TOTAL_ANNOTATION_SIZE_LIMIT));

  if (m.finalizers !== undefined && m.finalizers !== null) {
    if (!Array.isArray(m.finalizers) || m.finalizers.some((f) => typeof f !== 'string')) {
      errs.push(fieldErrors.typeInvalid('metadata.finalizers', m.finalizers, 'must be a list of strings'));
    } else {
      const finalizers = m.finalizers as string[];
      for (const f of finalizers) for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid('metadata.finalizers', f, msg));
      if (finalizers.includes(ORPHAN_FINALIZER) && finalizers.includes(FOREGROUND_FINALIZER))
        errs.push(
          fieldErrors.invalid(
            'metadata.finalizers',
            finalizers,
            `finalizer ${ORPHAN_FINALIZER} and ${FOREGROUND_FINALIZER} cannot be both set`,
          ),
        );
    }
  }
  return errs;
}
