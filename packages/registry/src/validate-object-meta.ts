import { type FieldError, fieldErrors, isDNS1123Label, isQualifiedName, isValidLabelValue, nameIsDNSSubdomain } from '@kapi/apimachinery';
import { timeError } from './builtins/micro-time.ts';

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

function stringMap(errs: FieldError[], field: string, v: unknown, nullValues = false): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string' && !(nullValues && x === null))) {
    errs.push(fieldErrors.typeInvalid(field, v, 'must be a map of string keys to string values'));
    return {};
  }
  return v as Record<string, string>;
}

/** ObjectMeta's int64 fields, each a safe integer when given. */
function integerFields(errs: FieldError[], m: Record<string, unknown>): void {
  for (const k of ['generation', 'deletionGracePeriodSeconds'] as const) {
    const v = m[k];
    if (v !== undefined && v !== null && !Number.isSafeInteger(v))
      errs.push(fieldErrors.typeInvalid(`metadata.${k}`, v, 'must be an integer'));
  }
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
  // Go's int64 and string fields: another type would be stored for every Go client to fail decoding.
  integerFields(errs, m);
  optionalString(errs, 'metadata.selfLink', m.selfLink);

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

  errs.push(...validateOwnerReferences(m.ownerReferences));
  errs.push(...validateManagedFieldTypes(m.managedFields));

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

const OWNER_REFERENCE_STRINGS = ['apiVersion', 'kind', 'name', 'uid'] as const;
const OWNER_REFERENCE_FLAGS = ['controller', 'blockOwnerDeletion'] as const;

/**
 * What kube's decoder refuses in an object's metadata: values that do not decode into ObjectMeta's Go types (strings,
 * integers, RFC 3339 times, string maps, the finalizer list, the fields of owner references and managedFields
 * entries); null decodes wherever it stands (a zero value). The Store holds every body to it as it is decoded (what
 * the metadata says is validateObjectMeta's, later); a Scale or a review, which nothing validates further, too.
 */
export function objectMetaTypeErrors(metadata: unknown): FieldError[] {
  if (metadata === undefined || metadata === null) return [];
  if (typeof metadata !== 'object' || Array.isArray(metadata)) return [fieldErrors.typeInvalid('metadata', metadata, 'must be an object')];
  const m = metadata as Record<string, unknown>;
  const errs: FieldError[] = [];
  for (const k of ['name', 'generateName', 'namespace', 'selfLink'] as const) optionalString(errs, `metadata.${k}`, m[k]);
  // A null value decodes as "" in Go (a label left blank in a manifest): not a type error.
  stringMap(errs, 'metadata.labels', m.labels, true);
  stringMap(errs, 'metadata.annotations', m.annotations, true);
  const { finalizers, ownerReferences } = m;
  if (finalizers !== undefined && finalizers !== null && (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string')))
    errs.push(fieldErrors.typeInvalid('metadata.finalizers', finalizers, 'must be a list of strings'));
  if (ownerReferences !== undefined && ownerReferences !== null) {
    if (!Array.isArray(ownerReferences) || ownerReferences.some((r) => r !== null && (typeof r !== 'object' || Array.isArray(r))))
      errs.push(fieldErrors.typeInvalid(OWNER_REFERENCES, ownerReferences, 'must be a list of objects'));
    else
      ownerReferences.forEach((ref: Record<string, unknown> | null, i) => {
        if (!ref) return;
        for (const k of OWNER_REFERENCE_STRINGS) optionalString(errs, `${OWNER_REFERENCES}[${i}].${k}`, ref[k]);
        for (const k of OWNER_REFERENCE_FLAGS)
          if (ref[k] !== undefined && ref[k] !== null && typeof ref[k] !== 'boolean')
            errs.push(fieldErrors.typeInvalid(`${OWNER_REFERENCES}[${i}].${k}`, ref[k], 'must be a boolean'));
      });
  }
  // The fields the server sets or keeps as stored: validateObjectMeta, later, sees them overwritten (the entries set
  // aside by the field manager), so their types are held here.
  for (const k of ['uid', 'resourceVersion'] as const) optionalString(errs, `metadata.${k}`, m[k]);
  integerFields(errs, m);
  for (const k of ['creationTimestamp', 'deletionTimestamp'] as const) {
    const v = m[k];
    if (v === undefined || v === null) continue;
    const bad = typeof v === 'string' ? timeError(v) : 'must be a string';
    if (bad) errs.push(fieldErrors.typeInvalid(`metadata.${k}`, v, bad));
  }
  errs.push(...validateManagedFieldTypes(m.managedFields));
  return errs;
}

const MANAGED_FIELDS = 'metadata.managedFields';
const MANAGED_FIELDS_STRINGS = ['manager', 'operation', 'apiVersion', 'fieldsType', 'subresource'] as const;

/**
 * What kube's decoder reads of managedFields entries a client sends (ManagedFieldsEntry's types: strings, an
 * RFC 3339 time; fieldsV1 is raw JSON): anything else would be stored for every Go client to fail decoding the
 * object and its lists. What the entries mean (operations, field sets) is the field manager's, which falls back to the
 * stored entries when they do not decode, as kube's does.
 */
export function validateManagedFieldTypes(entries: unknown): FieldError[] {
  if (entries === undefined || entries === null) return [];
  if (!Array.isArray(entries)) return [fieldErrors.typeInvalid(MANAGED_FIELDS, entries, 'must be a list of objects')];
  const errs: FieldError[] = [];
  // Every write carries entries: the path is only built for an error.
  const at = (i: number, k?: string) => `${MANAGED_FIELDS}[${i}]${k ? `.${k}` : ''}`;
  for (let i = 0; i < entries.length; i++) {
    const e: unknown = entries[i];
    // Go decodes null into an empty entry (`[null]` asks for tracking to start over, as `[{}]` does).
    if (e === null) continue;
    if (typeof e !== 'object' || Array.isArray(e)) {
      errs.push(fieldErrors.typeInvalid(at(i), e, 'must be an object'));
      continue;
    }
    const entry = e as Record<string, unknown>;
    for (const k of MANAGED_FIELDS_STRINGS) {
      const v = entry[k];
      if (v !== undefined && v !== null && typeof v !== 'string') errs.push(fieldErrors.typeInvalid(at(i, k), v, 'must be a string'));
    }
    const time = entry.time;
    if (time !== undefined && time !== null) {
      const bad = typeof time === 'string' ? timeError(time) : 'must be a string';
      if (bad) errs.push(fieldErrors.typeInvalid(at(i, 'time'), time, bad));
    }
    // fieldsV1 is raw JSON to kube's decoder (metav1.FieldsV1): any value decodes, and the field manager sets aside
    // what does not decode as a field set.
  }
  return errs;
}

const OWNER_REFERENCES = 'metadata.ownerReferences';
/** apimachinery's BannedOwners: group/version/kind that may not own anything. */
const BANNED_OWNERS = new Set(['/v1, Kind=Event']);

/** schema.FromAPIVersionAndKind: a malformed apiVersion (more than one '/') leaves group and version empty. */
function ownerGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0] as string, version: parts[1] as string };
  return { group: '', version: '' };
}

/**
 * apimachinery's ValidateOwnerReferences. Kubernetes reports every reference's errors on the list's own path
 * (`metadata.ownerReferences.uid`, no index), and a second controller reference against the whole list.
 * Go prints the bad reference values with %#v (pointers as addresses); they print as JSON here.
 */
export function validateOwnerReferences(refs: unknown): FieldError[] {
  if (refs === undefined || refs === null) return [];
  if (!Array.isArray(refs) || refs.some((r) => typeof r !== 'object' || r === null || Array.isArray(r)))
    return [fieldErrors.typeInvalid(OWNER_REFERENCES, refs, 'must be a list of objects')];
  const errs: FieldError[] = [];
  let firstController = '';
  refs.forEach((ref: Record<string, unknown>, i) => {
    const at = `${OWNER_REFERENCES}[${i}]`;
    const apiVersion = optionalString(errs, `${at}.apiVersion`, ref.apiVersion);
    const kind = optionalString(errs, `${at}.kind`, ref.kind);
    const name = optionalString(errs, `${at}.name`, ref.name);
    const uid = optionalString(errs, `${at}.uid`, ref.uid);
    for (const flag of ['controller', 'blockOwnerDeletion'])
      if (ref[flag] !== undefined && ref[flag] !== null && typeof ref[flag] !== 'boolean')
        errs.push(fieldErrors.typeInvalid(`${at}.${flag}`, ref[flag], 'must be a boolean'));
    const { group, version } = ownerGroupVersion(apiVersion);
    // GroupVersionKind.String().
    const gvk = `${group}/${version}, Kind=${kind}`;
    if (!version) errs.push(fieldErrors.invalid(`${OWNER_REFERENCES}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!kind) errs.push(fieldErrors.invalid(`${OWNER_REFERENCES}.kind`, kind, 'must not be empty'));
    if (!name) errs.push(fieldErrors.invalid(`${OWNER_REFERENCES}.name`, name, 'must not be empty'));
    if (!uid) errs.push(fieldErrors.invalid(`${OWNER_REFERENCES}.uid`, uid, 'must not be empty'));
    if (BANNED_OWNERS.has(gvk)) errs.push(fieldErrors.invalid(OWNER_REFERENCES, ref, `${gvk} is disallowed from being an owner`));
    if (ref.controller === true) {
      const controllerName = `${kind}/${name}`;
      if (!firstController) firstController = controllerName;
      else
        errs.push(
          fieldErrors.invalid(
            OWNER_REFERENCES,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${controllerName}`,
          ),
        );
    }
  });
  return errs;
}

/** The finalizer names Kubernetes itself defines, which need no domain. */
const STANDARD_FINALIZERS: ReadonlySet<string> = new Set([ORPHAN_FINALIZER, FOREGROUND_FINALIZER, 'kubernetes']);

/**
 * The custom-resource strategy's WarningsOnCreate / WarningsOnUpdate (apiextensions-apiserver's
 * generateWarningsFromObj and validateKubeFinalizerName): for every finalizer the write adds (sorted), its
 * qualified-name problems and, for a name without '/' that Kubernetes does not define, a nudge towards a
 * domain-qualified one (kube 1.34+ words it "including a path (/)" for names that look like a domain already).
 */
export function finalizerWarnings(
  obj: { metadata?: { finalizers?: unknown } },
  old: { metadata?: { finalizers?: unknown } } | undefined,
): string[] {
  const list = (o: typeof obj | undefined): string[] => {
    const f = o?.metadata?.finalizers;
    return Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string') : [];
  };
  const before = new Set(list(old));
  const added = [...new Set(list(obj))].filter((f) => !before.has(f)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const field = 'metadata.finalizers';
  const warnings: string[] = [];
  for (const f of added) {
    const quoted = JSON.stringify(f);
    for (const msg of isQualifiedName(f)) warnings.push(`${field}: ${quoted}: ${msg}`);
    if (!f.includes('/') && !STANDARD_FINALIZERS.has(f))
      warnings.push(
        `${field}: ${quoted}: prefer a domain-qualified finalizer name ${f.includes('.') ? 'including a path (/) ' : ''}to avoid accidental conflicts with other finalizer writers`,
      );
  }
  return warnings;
}
