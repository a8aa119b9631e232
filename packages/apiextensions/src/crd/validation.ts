import { validateCABundle, validateWebhookService, validateWebhookURL } from '@kapi/admission';
import { type FieldError, fieldErrors, isDNS1123Subdomain, jsonEqual, OMIT_VALUE } from '@kapi/apimachinery';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { newStructural } from '../schema/new-structural.ts';
import type { Structural } from '../schema/structural.ts';
import { exceedsSchemaDepth, MAX_SCHEMA_DEPTH, validateCRDSchema } from '../schema/validate-crd-schema.ts';
import { type ValueValidator, validateDefaults } from '../schema/validate-defaults.ts';
import { validateStructural } from '../schema/validate-structural.ts';
import { isCRDConditionTrue } from './conditions.ts';
import { validFieldPath } from './field-path.ts';
import { type InternalSpec, type InternalVersion, toInternalSpec } from './internal-spec.ts';
import { schemaShapeErrors } from './schema-shape.ts';
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinition,
  CustomResourceDefinitionNames,
  CustomResourceSubresources,
  CustomResourceValidation,
  SelectableField,
} from './types.ts';
import { compileValidationRules } from './validation-rules.ts';

/**
 * kube's CRD validation (apis/apiextensions/validation/validation.go) on the internal form of the spec
 * ({@link toInternalSpec}), with kube's messages and field paths. The schema's own rules are the schema package's
 * (validateStructural, validateSchemaRules, validateDefaults); compiling x-kubernetes-validations CEL rules and their
 * cost estimates, and building the value validator ("error building validator"), are not done here.
 */

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const ACCEPTED_CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const MAX_SELECTABLE_FIELDS = 8;
const KUBE_API_APPROVED_ANNOTATION = 'api-approved.kubernetes.io';

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** validation.IsDNS1035Label. */
export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (new TextEncoder().encode(v).length > 63) errs.push('must be no more than 63 characters');
  if (!DNS1035_LABEL_RE.test(v))
    errs.push(
      `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035_LABEL_FMT}')`,
    );
  return errs;
}

/** Go's `%#v` of a []string, as kube's field errors print a list value. */
function goStringSlice(values: readonly string[] | undefined): string {
  return values === undefined ? '[]string(nil)' : `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/** An Invalid error whose value kube prints with `%#v`, worded as its ErrorBody does. */
function invalidGoValue(field: string, goValue: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, badValue: OMIT_VALUE, detail: `${goValue}: ${detail}` };
}

/** What an update may keep of the stored CRD although a new one would be refused (kube's ratcheting). */
interface Options {
  requireRecognizedConversionReviewVersion: boolean;
  requireImmutableNames: boolean;
  requireOpenAPISchema: boolean;
  requireStructuralSchema: boolean;
  requirePrunedDefaults: boolean;
  /** An invalid caBundle is let through on create, before the CRD is Established, and when the stored one is invalid too. */
  allowInvalidCABundle: boolean;
  validateValue?: ValueValidator;
}

export interface CRDValidationOptions {
  /** Checks each schema default against its schema (the value validator); without it only pruning is checked. */
  validateValue?: ValueValidator;
}

/** ValidateCustomResourceDefinition, minus ObjectMeta's generic rules (the Store checks those). */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition, options: CRDValidationOptions = {}): FieldError[] {
  const opts: Options = {
    requireRecognizedConversionReviewVersion: true,
    requireImmutableNames: false,
    requireOpenAPISchema: true,
    requireStructuralSchema: true,
    requirePrunedDefaults: true,
    allowInvalidCABundle: true,
    ...(options.validateValue ? { validateValue: options.validateValue } : {}),
  };
  const spec = toInternalSpec(crd.spec);
  const deep = schemaPreconditionErrors(spec);
  if (deep.length) return deep;
  return [
    ...validateName(crd, spec),
    ...validateSpec(spec, opts, 'spec'),
    ...validateStatus(crd),
    ...validateStoredVersions(crd.status?.storedVersions, spec.versions),
    ...validateAPIApproval(crd, undefined),
    ...validatePreserveUnknownFields(crd, undefined),
  ];
}

/** ValidateCustomResourceDefinitionUpdate, minus ObjectMeta's generic update rules (the Store checks those). */
export function validateCustomResourceDefinitionUpdate(
  crd: CustomResourceDefinition,
  old: CustomResourceDefinition,
  options: CRDValidationOptions = {},
): FieldError[] {
  const oldSpec = toInternalSpec(old.spec);
  // What the walks below would choke on is refused first (the stored CRD passed this check when it was written).
  const deepNew = schemaPreconditionErrors(toInternalSpec(crd.spec));
  if (deepNew.length) return deepNew;
  const oldConv = oldSpec.conversion;
  const opts: Options = {
    requireRecognizedConversionReviewVersion: !oldConv || hasValidConversionReviewVersionOrEmpty(oldConv.conversionReviewVersions),
    requireImmutableNames: isCRDConditionTrue(old, 'Established'),
    requireOpenAPISchema: allVersionsSpecifyOpenAPISchema(oldSpec),
    // An already stored non-structural schema, or one with unpruned defaults, may stay: kube does not tighten
    // validation of what is persisted ("don't tighten validation on existing persisted data").
    requireStructuralSchema: !schemas(oldSpec).some(isNonStructural),
    requirePrunedDefaults: !schemas(oldSpec).some(hasUnprunedDefaults),
    allowInvalidCABundle: allowInvalidCABundle(old, oldSpec),
    ...(options.validateValue ? { validateValue: options.validateValue } : {}),
  };
  const spec = toInternalSpec(crd.spec);
  const deep = schemaPreconditionErrors(spec);
  if (deep.length) return deep;
  const errs = validateSpec(spec, opts, 'spec');
  if (opts.requireImmutableNames) {
    errs.push(...immutable(spec.scope, oldSpec.scope, 'spec.scope'), ...immutable(spec.names.kind, oldSpec.names.kind, 'spec.names.kind'));
  }
  errs.push(
    ...immutable(spec.group, oldSpec.group, 'spec.group'),
    ...immutable(spec.names.plural, oldSpec.names.plural, 'spec.names.plural'),
  );
  return [
    ...errs,
    ...validateStatus(crd),
    ...validateStoredVersions(crd.status?.storedVersions, spec.versions),
    ...validateAPIApproval(crd, old),
    ...validatePreserveUnknownFields(crd, old),
  ];
}

/** ValidateUpdateCustomResourceDefinitionStatus, minus ObjectMeta's update rules. */
export function validateCustomResourceDefinitionStatusUpdate(crd: CustomResourceDefinition): FieldError[] {
  return validateStatus(crd);
}

/**
 * What must hold before the schema walks run: kapi's own depth limit, the schema package's (validateCRDSchema: schemas
 * nested more than MAX_SCHEMA_DEPTH deep, which V8's stack could not walk; Go's growable stacks can), then the JSON
 * types of the schema's fields (what Go's decoding refuses). Both found with explicit stacks.
 */
function schemaPreconditionErrors(spec: InternalSpec): FieldError[] {
  const at: [string, JSONSchemaProps][] = [];
  if (spec.validation?.openAPIV3Schema) at.push(['spec.validation.openAPIV3Schema', spec.validation.openAPIV3Schema]);
  spec.versions.forEach((v, i) => {
    if (v.schema?.openAPIV3Schema) at.push([`spec.versions[${i}].schema.openAPIV3Schema`, v.schema.openAPIV3Schema]);
  });
  const errs: FieldError[] = [];
  for (const [p, s] of at) {
    if (exceedsSchemaDepth(s, MAX_SCHEMA_DEPTH))
      errs.push(fieldErrors.forbidden(p, `must not be nested more than ${MAX_SCHEMA_DEPTH} schemas deep`));
    else errs.push(...schemaShapeErrors(s, p));
  }
  return errs;
}

/** ValidateImmutableField. */
function immutable(value: unknown, old: unknown, path: string): FieldError[] {
  return jsonEqual(value, old) ? [] : [fieldErrors.invalid(path, value, 'field is immutable')];
}

/** The name rule kube's ValidateObjectMeta adds for CRDs (the DNS-subdomain rule is the Store's). */
function validateName(crd: CustomResourceDefinition, spec: InternalSpec): FieldError[] {
  const required = `${spec.names.plural}.${spec.group}`;
  const msg = 'must be spec.names.plural+"."+spec.group';
  const errs: FieldError[] = [];
  const { name, generateName } = crd.metadata;
  if (generateName && generateName !== required) errs.push(fieldErrors.invalid('metadata.generateName', generateName, msg));
  if (name && name !== required) errs.push(fieldErrors.invalid('metadata.name', name, msg));
  return errs;
}

function validateStatus(crd: CustomResourceDefinition): FieldError[] {
  return validateNames(crd.status?.acceptedNames ?? { plural: '', kind: '' }, 'status.acceptedNames');
}

/** ValidateCustomResourceDefinitionStoredVersions. */
function validateStoredVersions(stored: string[] | undefined, versions: InternalVersion[]): FieldError[] {
  const path = 'status.storedVersions';
  if (!stored || stored.length === 0) return [invalidGoValue(path, goStringSlice(stored), 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  for (const [i, v] of stored.entries()) remaining.set(v, i);
  for (const v of versions) {
    const has = remaining.has(v.name);
    if (v.storage && !has) errs.push(invalidGoValue(path, goStringSlice(stored), `must have the storage version ${v.name}`));
    if (has) remaining.delete(v.name);
  }
  for (const [v, i] of remaining)
    errs.push(
      fieldErrors.invalid(
        `${path}[${i}]`,
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  return errs;
}

/** validateCustomResourceDefinitionSpec. */
function validateSpec(spec: InternalSpec, optsIn: Options, path: string): FieldError[] {
  const opts = { ...optsIn };
  const errs: FieldError[] = [];
  if (spec.group === '') errs.push(fieldErrors.required(`${path}.group`, ''));
  else {
    const dns = isDNS1123Subdomain(spec.group);
    if (dns.length) errs.push(fieldErrors.invalid(`${path}.group`, spec.group, dns.join(',')));
    else if (spec.group.split('.').length < 2)
      errs.push(fieldErrors.invalid(`${path}.group`, spec.group, 'should be a domain with at least one dot'));
  }
  errs.push(...validateEnum(`${path}.scope`, spec.scope, ['Cluster', 'Namespaced']));

  // Pruning needs structural schemas.
  if (!spec.preserveUnknownFields) opts.requireStructuralSchema = true;
  if (opts.requireOpenAPISchema) {
    if (!spec.validation?.openAPIV3Schema)
      spec.versions.forEach((v, i) => {
        if (!v.schema?.openAPIV3Schema)
          errs.push(fieldErrors.required(`${path}.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
      });
  } else if (!spec.preserveUnknownFields && !spec.validation?.openAPIV3Schema) {
    spec.versions.forEach((v, i) => {
      if (v.served && !v.schema?.openAPIV3Schema)
        errs.push(fieldErrors.required(`${path}.versions[${i}].schema.openAPIV3Schema`, 'because otherwise all fields are pruned'));
    });
  }
  if (schemas(spec).some((s) => schemaHas(s, (n) => n.default != null))) {
    opts.requireStructuralSchema = true;
    if (spec.preserveUnknownFields)
      errs.push(fieldErrors.invalid(`${path}.preserveUnknownFields`, true, 'must be false in order to use defaults in the schema'));
  }
  if (schemas(spec).some((s) => schemaHas(s, hasKubernetesExtensions))) opts.requireStructuralSchema = true;

  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  spec.versions.forEach((v, i) => {
    if (v.storage) storageCount++;
    if (seen.has(v.name)) unique = false;
    else seen.add(v.name);
    const dns = isDNS1035Label(v.name);
    if (dns.length) errs.push(fieldErrors.invalid(`${path}.versions[${i}].name`, v.name, dns.join(',')));
    const subresources = hasPerVersion(spec.versions, 'subresources') ? v.subresources : spec.subresources;
    errs.push(...validateVersion(v, `${path}.versions[${i}]`, subresources?.status != null, opts));
  });
  if (!unique) errs.push(fieldErrors.invalid(`${path}.versions`, spec.versions, 'must contain unique version names'));
  if (storageCount !== 1)
    errs.push(fieldErrors.invalid(`${path}.versions`, spec.versions, 'must have exactly one version marked as storage version'));
  if (spec.version !== '') {
    const dns = isDNS1035Label(spec.version);
    if (dns.length) errs.push(fieldErrors.invalid(`${path}.version`, spec.version, dns.join(',')));
  }

  const names = spec.names;
  if (!names.plural) errs.push(fieldErrors.required(`${path}.names.plural`, ''));
  if (!names.singular) errs.push(fieldErrors.required(`${path}.names.singular`, ''));
  if (!names.kind) errs.push(fieldErrors.required(`${path}.names.kind`, ''));
  if (!names.listKind) errs.push(fieldErrors.required(`${path}.names.listKind`, ''));
  errs.push(...validateNames(names, `${path}.names`));

  const anyStatus = spec.subresources?.status != null || spec.versions.some((v) => v.subresources?.status != null);
  errs.push(...validateValidation(spec.validation, anyStatus, opts, `${path}.validation`));
  errs.push(...validateSubresources(spec.subresources, `${path}.subresources`));
  spec.additionalPrinterColumns?.forEach((c, i) => {
    errs.push(...validateColumn(c, `${path}.additionalPrinterColumns[${i}]`));
  });
  if (spec.selectableFields?.length) {
    if (!spec.validation) {
      errs.push(
        fieldErrors.invalid(`${path}.selectableFields`, '', 'selectableFields may only be set when validations.schema is included'),
      );
    } else {
      errs.push(
        ...selectableFieldsAgainst(
          spec.selectableFields,
          spec.validation.openAPIV3Schema,
          `${path}.schema.openAPIV3Schema`,
          `${path}.selectableFields`,
        ),
      );
    }
  }

  const conv = spec.conversion;
  if (conv && conv.strategy !== 'None' && spec.preserveUnknownFields)
    errs.push(fieldErrors.invalid(`${path}.conversion.strategy`, conv.strategy, 'must be None if spec.preserveUnknownFields is true'));
  errs.push(...validateConversion(spec, opts, `${path}.conversion`));
  return errs;
}

function validateEnum(path: string, value: string, accepted: string[]): FieldError[] {
  if (value === '') return [fieldErrors.required(path, '')];
  return accepted.includes(value) ? [] : [fieldErrors.notSupported(path, value, accepted)];
}

function hasPerVersion(versions: InternalVersion[], field: 'subresources' | 'schema'): boolean {
  return versions.some((v) => v[field] != null);
}

/** validateCustomResourceDefinitionVersion. */
function validateVersion(v: InternalVersion, path: string, statusEnabled: boolean, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  for (const msg of validateDeprecationWarning(v.deprecated === true, v.deprecationWarning))
    errs.push(fieldErrors.invalid(`${path}.deprecationWarning`, v.deprecationWarning, msg));
  errs.push(...validateValidation(v.schema, statusEnabled, opts, `${path}.schema`));
  errs.push(...validateSubresources(v.subresources, `${path}.subresources`));
  v.additionalPrinterColumns?.forEach((c, i) => {
    errs.push(...validateColumn(c, `${path}.additionalPrinterColumns[${i}]`));
  });
  if (v.selectableFields?.length) {
    if (!v.schema?.openAPIV3Schema)
      errs.push(
        fieldErrors.invalid(
          `${path}.selectableFields`,
          '',
          'selectableFields may only be set when version.schema.openAPIV3Schema is not included',
        ),
      );
    else
      errs.push(
        ...selectableFieldsAgainst(
          v.selectableFields,
          v.schema.openAPIV3Schema,
          `${path}.schema.openAPIV3Schema`,
          `${path}.selectableFields`,
        ),
      );
  }
  return errs;
}

function validateDeprecationWarning(deprecated: boolean, warning: string | undefined): string[] {
  if (!deprecated && warning !== undefined) return ['can only be set for deprecated versions'];
  if (warning === undefined) return [];
  const errs: string[] = [];
  if (new TextEncoder().encode(warning).length > 256) errs.push('must be <= 256 characters long');
  if (warning.length === 0) errs.push('must not be an empty string');
  let byteIndex = 0;
  for (const ch of warning) {
    if (/\p{Cc}/u.test(ch)) {
      // unicode.IsPrint is false for control characters, so Go reports them as non-printable first.
      errs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${byteIndex}`);
      break;
    }
    if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) {
      errs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${byteIndex}`);
      break;
    }
    byteIndex += new TextEncoder().encode(ch).length;
  }
  return errs;
}

/** ValidateCustomResourceDefinitionNames. */
export function validateNames(names: CustomResourceDefinitionNames, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (value: string | undefined, at: string, lower = false, prefix = '') => {
    if (!value) return;
    const dns = isDNS1035Label(lower ? value.toLowerCase() : value);
    if (dns.length) errs.push(fieldErrors.invalid(at, value, prefix + dns.join(',')));
  };
  label(names.plural, `${path}.plural`);
  label(names.singular, `${path}.singular`);
  label(names.kind, `${path}.kind`, true, 'may have mixed case, but should otherwise match: ');
  label(names.listKind, `${path}.listKind`, true, 'may have mixed case, but should otherwise match: ');
  names.shortNames?.forEach((s, i) => {
    const dns = isDNS1035Label(s);
    if (dns.length) errs.push(fieldErrors.invalid(`${path}.shortNames[${i}]`, s, dns.join(',')));
  });
  if (names.kind && names.kind === names.listKind)
    errs.push(fieldErrors.invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  names.categories?.forEach((c, i) => {
    const dns = isDNS1035Label(c);
    if (dns.length) errs.push(fieldErrors.invalid(`${path}.categories[${i}]`, c, dns.join(',')));
  });
  return errs;
}

/** ValidateCustomResourceColumnDefinition. */
function validateColumn(col: CustomResourceColumnDefinition, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!col.name) errs.push(fieldErrors.required(`${path}.name`, ''));
  const types = `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`;
  if (!col.type) errs.push(fieldErrors.required(`${path}.type`, types));
  else if (!PRINTER_COLUMN_TYPES.includes(col.type)) errs.push(fieldErrors.invalid(`${path}.type`, col.type, types));
  if (col.format && !PRINTER_COLUMN_FORMATS.includes(col.format))
    errs.push(fieldErrors.invalid(`${path}.format`, col.format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  if (!col.jsonPath) errs.push(fieldErrors.required(`${path}.JSONPath`, ''));
  else errs.push(...validateSimpleJSONPath(col.jsonPath, `${path}.JSONPath`));
  return errs;
}

function validateSimpleJSONPath(s: string, path: string): FieldError[] {
  if (s.length === 0) return [fieldErrors.invalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [fieldErrors.invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

/** ValidateCustomResourceDefinitionSubresources. */
function validateSubresources(sub: CustomResourceSubresources | undefined, path: string): FieldError[] {
  const scale = sub?.scale;
  if (!scale) return [];
  const errs: FieldError[] = [];
  const under = (value: string | undefined, name: string, prefixes: string[], detail: string, required: boolean) => {
    const at = `${path}.scale.${name}`;
    if (!value) {
      if (required) errs.push(fieldErrors.required(at, ''));
      return;
    }
    const json = validateSimpleJSONPath(value, at);
    if (json.length) errs.push(...json);
    else if (!prefixes.some((p) => value.startsWith(p))) errs.push(fieldErrors.invalid(at, value, detail));
  };
  under(scale.specReplicasPath, 'specReplicasPath', ['.spec.'], 'should be a json path under .spec', true);
  under(scale.statusReplicasPath, 'statusReplicasPath', ['.status.'], 'should be a json path under .status', true);
  under(scale.labelSelectorPath, 'labelSelectorPath', ['.spec.', '.status.'], 'should be a json path under either .spec or .status', false);
  return errs;
}

/** ValidateCustomResourceSelectableFields against the schema the fields are in. */
function selectableFieldsAgainst(
  fields: SelectableField[],
  schema: JSONSchemaProps | undefined,
  schemaPath: string,
  path: string,
): FieldError[] {
  let structural: Structural | undefined;
  const errs: FieldError[] = [];
  try {
    structural = schema ? newStructural(schema) : undefined;
  } catch (e) {
    errs.push(fieldErrors.invalid(schemaPath, '', (e as Error).message));
  }
  const unique = new Set<string>();
  fields.forEach((f, i) => {
    const at = `${path}[${i}].jsonPath`;
    if (!f.jsonPath) {
      errs.push(fieldErrors.required(at, ''));
      return;
    }
    let found: ReturnType<typeof validFieldPath>;
    try {
      // A nil schema in Go makes every step "does not refer to a valid field".
      found = validFieldPath(f.jsonPath, structural ?? {}, false);
    } catch (e) {
      errs.push(fieldErrors.invalid(at, f.jsonPath, `is an invalid path: ${(e as Error).message}`));
      return;
    }
    if (found.root === 'metadata') errs.push(fieldErrors.invalid(at, f.jsonPath, 'must not point to fields in metadata'));
    const type = found.schema?.type;
    if (type !== 'string' && type !== 'boolean' && type !== 'integer')
      errs.push(
        fieldErrors.invalid(
          at,
          f.jsonPath,
          'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        ),
      );
    if (unique.has(found.path)) errs.push(fieldErrors.duplicate(at, f.jsonPath));
    else unique.add(found.path);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS) errs.push(fieldErrors.tooMany(path, unique.size, MAX_SELECTABLE_FIELDS));
  return errs;
}

/**
 * validateCustomResourceDefinitionValidation: the schema package's validateCRDSchema with the ratchets of an update,
 * then, where the schema is otherwise sound (a structural schema with valid defaults), kube's CEL rule compilation.
 */
function validateValidation(v: CustomResourceValidation | undefined, statusEnabled: boolean, opts: Options, path: string): FieldError[] {
  const schema = v?.openAPIV3Schema;
  if (!schema) return [];
  const { errors } = validateCRDSchema(schema, path, {
    statusSubresource: statusEnabled,
    requireStructuralSchema: opts.requireStructuralSchema,
    requirePrunedDefaults: opts.requirePrunedDefaults,
    ...(opts.validateValue ? { validateValue: opts.validateValue } : {}),
  });
  if (errors.length === 0 && opts.requireStructuralSchema) return compileValidationRules(schema, `${path}.openAPIV3Schema`);
  return errors;
}

/** validateCustomResourceConversion (with validateConversionReviewVersions). */
function validateConversion(spec: InternalSpec, opts: Options, path: string): FieldError[] {
  const conv = spec.conversion;
  if (!conv) return [];
  const errs = validateEnum(`${path}.strategy`, conv.strategy, ['None', 'Webhook']);
  if (conv.strategy === 'Webhook') {
    const cc = conv.webhookClientConfig;
    const ccPath = `${path}.webhookClientConfig`;
    if (!cc) errs.push(fieldErrors.required(ccPath, 'required when strategy is set to Webhook'));
    else if ((cc.url == null) === (cc.service == null))
      errs.push(fieldErrors.required(ccPath, 'exactly one of url or service is required'));
    else if (cc.url != null) errs.push(...validateWebhookURL(`${ccPath}.url`, cc.url, true));
    else if (cc.service) {
      const s = cc.service;
      // kube passes (name, namespace) to a function declared (namespace, name); see validateWebhookService.
      errs.push(...validateWebhookService(`${ccPath}.service`, s.name ?? '', s.namespace ?? '', s.path, s.port ?? 443));
    }
    if (cc?.caBundle && !opts.allowInvalidCABundle) errs.push(...validateCABundle(`${ccPath}.caBundle`, cc.caBundle));
    errs.push(
      ...validateConversionReviewVersions(
        conv.conversionReviewVersions ?? [],
        opts.requireRecognizedConversionReviewVersion,
        `${path}.conversionReviewVersions`,
      ),
    );
  } else {
    if (conv.webhookClientConfig)
      errs.push(fieldErrors.forbidden(`${path}.webhookClientConfig`, 'should not be set when strategy is not set to Webhook'));
    if (conv.conversionReviewVersions?.length)
      errs.push(fieldErrors.forbidden(`${path}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

function validateConversionReviewVersions(versions: string[], requireRecognized: boolean, path: string): FieldError[] {
  if (versions.length < 1) return [fieldErrors.required(path, '')];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErrors.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldErrors.invalid(`${path}[${i}]`, v, msg));
    if (ACCEPTED_CONVERSION_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted)
    errs.push(
      invalidGoValue(path, goStringSlice(versions), `must include at least one of ${ACCEPTED_CONVERSION_REVIEW_VERSIONS.join(', ')}`),
    );
  return errs;
}

/** allowInvalidCABundle: only an Established CRD with a valid (or no) stored caBundle must keep a valid one. */
function allowInvalidCABundle(old: CustomResourceDefinition, oldSpec: InternalSpec): boolean {
  if (!isCRDConditionTrue(old, 'Established')) return true;
  const bundle = oldSpec.conversion?.webhookClientConfig?.caBundle;
  if (!bundle) return false;
  return validateCABundle('caBundle', bundle).length > 0;
}

function hasValidConversionReviewVersionOrEmpty(versions: string[] | undefined): boolean {
  return !versions?.length || versions.some((v) => ACCEPTED_CONVERSION_REVIEW_VERSIONS.includes(v));
}

function allVersionsSpecifyOpenAPISchema(spec: InternalSpec): boolean {
  return spec.validation?.openAPIV3Schema != null || spec.versions.every((v) => v.schema?.openAPIV3Schema != null);
}

/** Every openAPIV3Schema of a spec: the top-level one and each version's. */
function schemas(spec: InternalSpec): JSONSchemaProps[] {
  const out: JSONSchemaProps[] = [];
  if (spec.validation?.openAPIV3Schema) out.push(spec.validation.openAPIV3Schema);
  for (const v of spec.versions) if (v.schema?.openAPIV3Schema) out.push(v.schema.openAPIV3Schema);
  return out;
}

/** SchemaHas: whether `pred` holds anywhere in the schema. */
function schemaHas(s: JSONSchemaProps | undefined | null, pred: (s: JSONSchemaProps) => boolean): boolean {
  if (s == null || typeof s !== 'object') return false;
  if (pred(s)) return true;
  const items = s.items;
  if (Array.isArray(items)) {
    if (items.some((i) => schemaHas(i, pred))) return true;
  } else if (schemaHas(items, pred)) return true;
  for (const list of [s.allOf, s.anyOf, s.oneOf]) if (list?.some((x) => schemaHas(x, pred))) return true;
  if (schemaHas(s.not, pred)) return true;
  for (const p of Object.values(s.properties ?? {})) if (schemaHas(p, pred)) return true;
  if (typeof s.additionalProperties === 'object' && schemaHas(s.additionalProperties, pred)) return true;
  const r = s as Record<string, unknown>;
  for (const k of ['patternProperties', 'definitions', 'dependencies'])
    for (const p of Object.values((r[k] as Record<string, JSONSchemaProps> | undefined) ?? {})) if (schemaHas(p, pred)) return true;
  if (typeof r.additionalItems === 'object' && schemaHas(r.additionalItems as JSONSchemaProps, pred)) return true;
  return false;
}

function hasKubernetesExtensions(s: JSONSchemaProps): boolean {
  return (
    s['x-kubernetes-embedded-resource'] === true ||
    s['x-kubernetes-preserve-unknown-fields'] != null ||
    s['x-kubernetes-int-or-string'] === true ||
    (s['x-kubernetes-list-map-keys']?.length ?? 0) > 0 ||
    s['x-kubernetes-list-type'] != null ||
    (s['x-kubernetes-validations']?.length ?? 0) > 0
  );
}

/** schemaIsNonStructural. */
function isNonStructural(schema: JSONSchemaProps): boolean {
  try {
    return validateStructural('', newStructural(schema)).length > 0;
  } catch {
    return true;
  }
}

/** schemaHasUnprunedDefaults: a structural schema whose defaults pruning would change. */
function hasUnprunedDefaults(schema: JSONSchemaProps): boolean {
  if (!schemaHas(schema, (n) => n.default != null)) return false;
  try {
    const ss = newStructural(schema);
    if (validateStructural('', ss).length) return false;
    return validateDefaults('', ss, { isResourceRoot: true }).length > 0;
  } catch {
    return false;
  }
}

/** IsProtectedCommunityGroup. */
function isProtectedCommunityGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

type ApprovalState = 'Approved' | 'Bypassed' | 'Missing' | 'Invalid';

/** GetAPIApprovalState. */
function apiApprovalState(annotations: Record<string, string> | undefined): { state: ApprovalState; reason: string } {
  const a = annotations?.[KUBE_API_APPROVED_ANNOTATION] ?? '';
  const see = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (a === '')
    return { state: 'Missing', reason: `protected groups must have approval annotation "${KUBE_API_APPROVED_ANNOTATION}", ${see}` };
  if (a.startsWith('unapproved')) return { state: 'Bypassed', reason: '' };
  // url.ParseRequestURI with a host and a scheme.
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#\s]+/.test(a)) return { state: 'Approved', reason: '' };
  return {
    state: 'Invalid',
    reason: `protected groups must have approval annotation "${KUBE_API_APPROVED_ANNOTATION}" with either a URL or a reason starting with "unapproved", ${see}`,
  };
}

/** validateAPIApproval: CRDs in *.k8s.io and *.kubernetes.io need the API approval annotation. */
function validateAPIApproval(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  if (!isProtectedCommunityGroup(crd.spec.group ?? '')) return [];
  const next = apiApprovalState(crd.metadata.annotations);
  if (old && apiApprovalState(old.metadata.annotations).state === next.state) return [];
  const at = `metadata.annotations[${KUBE_API_APPROVED_ANNOTATION}]`;
  switch (next.state) {
    case 'Missing':
      return [fieldErrors.required(at, next.reason)];
    case 'Invalid':
      return [fieldErrors.invalid(at, crd.metadata.annotations?.[KUBE_API_APPROVED_ANNOTATION], next.reason)];
    default:
      return [];
  }
}

/** validatePreserveUnknownFields: v1 never lets a CRD start preserving unknown fields. */
function validatePreserveUnknownFields(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  if (old?.spec.preserveUnknownFields === true) return [];
  if (crd.spec.preserveUnknownFields === true)
    return [
      fieldErrors.invalid(
        'spec.preserveUnknownFields',
        true,
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    ];
  return [];
}
