import { isDNS1123Label, isDNS1123Subdomain } from '@kapi/apimachinery';
import { z } from 'zod';
import type {
  ObjectSchema,
  PrinterColumn,
  ResourceDefinition,
  ResourceInput,
  ResourceObject,
  ResourceVersion,
  SelectableField,
  StorageSchemaOf,
  VersionInput,
} from './resource-definition.ts';
import { openAPITypeOf, schemaAt } from './schema-walk.ts';
import { parseSimplePath } from './simple-path.ts';
import { defaultStrategy, type Strategy } from './strategy.ts';
import { zodVersionSchema } from './zod-version-schema.ts';

/** A definition that breaks a rule; `problems` lists every one found, not just the first. */
export class ResourceDefinitionError extends Error {
  readonly problems: readonly string[];
  constructor(what: string, problems: readonly string[]) {
    super(`invalid resource definition ${what}: ${problems.join('; ')}`);
    this.name = 'ResourceDefinitionError';
    this.problems = problems;
  }
}

const KIND_RE = /^[A-Z][A-Za-z0-9]*$/;
const DNS1035_LABEL_RE = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const RESERVED_FIELDS = ['apiVersion', 'kind', 'metadata'];
const COLUMN_TYPES = new Set(['integer', 'number', 'string', 'boolean', 'date']);
const COLUMN_FORMATS = new Set(['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'password', 'name']);
const SELECTABLE_TYPES = new Set(['string', 'integer', 'boolean']);
const MAX_SELECTABLE_FIELDS = 8;
const STRATEGY_HOOKS = new Set<string>([
  'prepareForCreate',
  'prepareForUpdate',
  'validate',
  'validateUpdate',
  'canonicalize',
  'allowCreateOnUpdate',
  'allowUnconditionalUpdate',
  'getAttrs',
  'warningsOnCreate',
  'warningsOnUpdate',
  'prepareForDelete',
]);

function dnsName(problems: string[], what: string, value: string, check: (v: string) => string[]): void {
  for (const msg of check(value)) problems.push(`${what} ${JSON.stringify(value)}: ${msg}`);
}

function duplicates(values: readonly string[]): string[] {
  return [...new Set(values.filter((v, i) => values.indexOf(v) !== i))];
}

function checkVersions(problems: string[], versions: readonly VersionInput[], topSchema: ObjectSchema | undefined): void {
  if (versions.length === 0) problems.push('at least one version is required');
  for (const name of duplicates(versions.map((v) => v.name))) problems.push(`version ${JSON.stringify(name)} is declared twice`);
  const storage = versions.filter((v) => v.storage === true || (versions.length === 1 && v.storage === undefined));
  if (versions.length > 0 && storage.length !== 1)
    problems.push(
      `exactly one version must be the storage version, found ${storage.length}${storage.length ? ` (${storage.map((v) => v.name).join(', ')})` : ''}`,
    );
  for (const v of versions) {
    if (!DNS1035_LABEL_RE.test(v.name) || v.name.length > 63)
      problems.push(
        `version ${JSON.stringify(v.name)} must be a DNS-1035 label (lowercase alphanumerics and '-', starting with a letter), e.g. v1 or v1beta1`,
      );
    const schema = v.schema ?? topSchema;
    if (!schema) problems.push(`version ${JSON.stringify(v.name)} has no schema and the definition has no top-level schema`);
    else if (!(schema instanceof z.ZodObject)) problems.push(`the schema of version ${JSON.stringify(v.name)} must be a zod object schema`);
    else
      for (const f of RESERVED_FIELDS)
        if (f in schema.shape) problems.push(`the schema of version ${JSON.stringify(v.name)} must not declare "${f}": kapi supplies it`);
    if ((v.toHub === undefined) !== (v.fromHub === undefined))
      problems.push(`version ${JSON.stringify(v.name)} needs both toHub and fromHub, or neither`);
    if (storage.length === 1 && storage[0] === v && v.toHub)
      problems.push(`the storage version ${JSON.stringify(v.name)} is the hub and takes no converters`);
  }
}

function checkPrinterColumns(problems: string[], columns: readonly PrinterColumn[], where = ''): void {
  for (const name of duplicates(columns.map((c) => c.name)))
    problems.push(`printer column ${JSON.stringify(name)}${where} is declared twice`);
  for (const c of columns) {
    const what = `printer column ${JSON.stringify(c.name)}${where}`;
    if (!c.name) problems.push('a printer column needs a name');
    if (!COLUMN_TYPES.has(c.type)) problems.push(`${what}: type ${JSON.stringify(c.type)} is not one of ${[...COLUMN_TYPES].join(', ')}`);
    if (c.format !== undefined && !COLUMN_FORMATS.has(c.format))
      problems.push(`${what}: format ${JSON.stringify(c.format)} is not one of ${[...COLUMN_FORMATS].join(', ')}`);
    if (!c.jsonPath.startsWith('.')) problems.push(`${what}: jsonPath ${JSON.stringify(c.jsonPath)} must start with "."`);
    if (c.priority !== undefined && (!Number.isInteger(c.priority) || c.priority < 0))
      problems.push(`${what}: priority must be a non-negative integer`);
  }
}

function frozenFields(fields: readonly SelectableField[]): SelectableField[] {
  return fields.map((f) => Object.freeze({ jsonPath: f.jsonPath }));
}

/** `where` names the version of a version's own fields (" of version \"v1\""), empty for the definition's. */
function checkSelectableFields(
  problems: string[],
  where: string,
  fields: readonly SelectableField[],
  schemas: readonly ObjectSchema[],
): void {
  if (fields.length > MAX_SELECTABLE_FIELDS) problems.push(`at most ${MAX_SELECTABLE_FIELDS} selectable fields${where} are allowed`);
  for (const p of duplicates(fields.map((f) => f.jsonPath)))
    problems.push(`selectable field ${JSON.stringify(p)}${where} is declared twice`);
  for (const f of fields) {
    const what = `selectable field ${JSON.stringify(f.jsonPath)}${where}`;
    const steps = parseSimplePath(f.jsonPath);
    if (!steps) problems.push(`${what} must be a simple JSONPath such as .spec.color`);
    else if (steps[0] === 'metadata')
      problems.push(`${what}: metadata.name and metadata.namespace are always selectable; no other metadata field is`);
    else
      for (const s of schemas) {
        const type = openAPITypeOf(schemaAt(s, steps));
        if (!type || !SELECTABLE_TYPES.has(type)) problems.push(`${what} must point to a string, integer or boolean field`);
      }
  }
}

function checkSchemaPath(problems: string[], what: string, path: string, under: readonly string[], schemas: readonly ObjectSchema[]): void {
  const steps = parseSimplePath(path);
  if (!steps) {
    problems.push(`${what} ${JSON.stringify(path)} must be a simple JSONPath such as .spec.replicas`);
    return;
  }
  if (!under.includes(steps[0] as string) || steps.length < 2) {
    problems.push(`${what} ${JSON.stringify(path)} must be under ${under.map((u) => `.${u}`).join(' or ')}`);
    return;
  }
  for (const s of schemas) if (!schemaAt(s, steps)) problems.push(`${what} ${JSON.stringify(path)} is not a field of the schema`);
}

/**
 * Checks and freezes a resource definition. The object type of the kind is inferred from the storage version's
 * zod schema: `ObjectOf<typeof Widget>`. Throws ResourceDefinitionError listing every broken rule.
 */
export function defineResource<const V extends readonly VersionInput[], S extends ObjectSchema | undefined = undefined>(
  input: ResourceInput<V, S, ResourceObject<StorageSchemaOf<V, S>>>,
): ResourceDefinition<ResourceObject<StorageSchemaOf<V, S>>> {
  type T = ResourceObject<StorageSchemaOf<V, S>>;
  const problems: string[] = [];
  const group = input.group;
  if (group !== '') dnsName(problems, 'group', group, isDNS1123Subdomain);
  if (!KIND_RE.test(input.kind)) problems.push(`kind ${JSON.stringify(input.kind)} must be UpperCamelCase, e.g. Widget`);
  dnsName(problems, 'plural', input.plural, isDNS1123Label);
  const singular = input.singular ?? input.kind.toLowerCase();
  dnsName(problems, 'singular', singular, isDNS1123Label);
  const shortNames = [...(input.shortNames ?? [])];
  for (const n of shortNames) dnsName(problems, 'short name', n, isDNS1123Label);
  for (const n of duplicates(shortNames)) problems.push(`short name ${JSON.stringify(n)} is declared twice`);
  for (const n of shortNames)
    if (n === input.plural || n === singular) problems.push(`short name ${JSON.stringify(n)} repeats the plural or singular name`);
  const categories = [...(input.categories ?? [])];
  for (const c of categories) dnsName(problems, 'category', c, isDNS1123Label);

  checkVersions(problems, input.versions, input.schema);
  // Scale and the definition's selectable fields read stored objects: their paths are checked against the storage version (the hub).
  const storageInput = input.versions.length === 1 ? input.versions[0] : input.versions.find((v) => v.storage === true);
  const storageSchema = storageInput?.schema ?? input.schema;
  const schemas = storageSchema instanceof z.ZodObject ? [storageSchema] : [];

  const scale = input.subresources?.scale;
  if (scale) {
    checkSchemaPath(problems, 'scale specReplicasPath', scale.specReplicasPath, ['spec'], schemas);
    checkSchemaPath(problems, 'scale statusReplicasPath', scale.statusReplicasPath, ['status'], schemas);
    if (scale.labelSelectorPath !== undefined)
      checkSchemaPath(problems, 'scale labelSelectorPath', scale.labelSelectorPath, ['spec', 'status'], schemas);
  }
  const printerColumns = (input.printerColumns ?? []).map((c) => Object.freeze({ ...c }));
  checkPrinterColumns(problems, printerColumns);

  const selectableFields = frozenFields(input.selectableFields ?? []);
  checkSelectableFields(problems, '', selectableFields, schemas);
  // A version's own columns and fields are read on objects in that version: its fields are checked against its schema.
  for (const v of input.versions) {
    const where = ` of version ${JSON.stringify(v.name)}`;
    if (v.printerColumns) checkPrinterColumns(problems, v.printerColumns, where);
    const schema = v.schema ?? input.schema;
    if (v.selectableFields)
      checkSelectableFields(problems, where, frozenFields(v.selectableFields), schema instanceof z.ZodObject ? [schema] : []);
  }
  for (const hook of Object.keys(input.strategy ?? {}))
    if (!STRATEGY_HOOKS.has(hook))
      problems.push(`strategy hook ${JSON.stringify(hook)} is unknown (known: ${[...STRATEGY_HOOKS].join(', ')})`);

  const resource = group ? `${input.plural}.${group}` : input.plural;
  if (problems.length) throw new ResourceDefinitionError(JSON.stringify(resource), [...new Set(problems)]);

  const versions: ResourceVersion[] = input.versions.map((v) =>
    Object.freeze({
      name: v.name,
      served: v.served ?? true,
      storage: v.storage ?? input.versions.length === 1,
      schema: zodVersionSchema((v.schema ?? input.schema) as ObjectSchema),
      deprecated: v.deprecated ?? false,
      ...(v.deprecationWarning !== undefined ? { deprecationWarning: v.deprecationWarning } : {}),
      ...(v.toHub ? { toHub: v.toHub, fromHub: v.fromHub } : {}),
      ...(v.printerColumns ? { printerColumns: Object.freeze(v.printerColumns.map((c) => Object.freeze({ ...c }))) } : {}),
      ...(v.selectableFields ? { selectableFields: Object.freeze(frozenFields(v.selectableFields)) } : {}),
    }),
  );
  const storageVersion = versions.find((v) => v.storage) as ResourceVersion;
  const subresources = Object.freeze({
    status: input.subresources?.status === true,
    ...(scale ? { scale: Object.freeze({ ...scale }) } : {}),
    ...(input.subresources?.proxy ? { proxy: input.subresources.proxy } : {}),
  });
  const base = { namespaced: input.namespaced, subresources, selectableFields };
  const strategy: Strategy<T> = Object.freeze({ ...defaultStrategy<T>(base), ...input.strategy });
  const def: ResourceDefinition<T> = {
    group,
    kind: input.kind,
    listKind: `${input.kind}List`,
    plural: input.plural,
    singular,
    shortNames: Object.freeze(shortNames),
    categories: Object.freeze(categories),
    namespaced: input.namespaced,
    versions: Object.freeze(versions),
    storageVersion,
    strategy,
    subresources,
    printerColumns: Object.freeze(printerColumns),
    nameColumn: input.nameColumn ?? true,
    selectableFields: Object.freeze(selectableFields),
    groupKind: Object.freeze({ group, kind: input.kind }),
    groupResource: Object.freeze({ group, resource: input.plural }),
    ...(input.validateName ? { validateName: input.validateName } : {}),
    ...(input.strategicMergePatch === false ? { strategicMergePatch: false } : {}),
    ...(input.conversion ? { conversion: input.conversion } : {}),
    ...(input.storedWith ? { storedWith: Object.freeze({ ...input.storedWith }) } : {}),
    version: (name) => versions.find((v) => v.name === name),
  };
  return Object.freeze(def);
}
