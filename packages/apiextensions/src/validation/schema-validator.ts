import { compileRE2, type RE2Regexp, RE2SyntaxError } from '@kapi/cel';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { formatChecker, supportedFormat } from './formats.ts';
import { goFloat, goNumber, goQuote, isInt64 } from './go-text.ts';
import { openAPIErrors as E, type OpenAPIError } from './openapi-errors.ts';

/**
 * kube-openapi's SchemaValidator (pkg/validation/validate) as kube-apiserver runs it on a custom resource, with
 * the schema compiled once: the validators run in kube's order (type, allOf/anyOf/oneOf/not, string, format,
 * number, array, enum, object), errors are de-duplicated by message as kube-openapi's Result does, and the
 * match counts that pick the reported anyOf/oneOf branch are kept the same way.
 */

/** kube-openapi's Result: the errors and how many checks passed (used to pick anyOf/oneOf's best failure). */
export class Result {
  errors: OpenAPIError[] = [];
  matchCount = 0;
  /** Adds an error unless one with the same message is there (kube-openapi's AddErrors). */
  addError(e: OpenAPIError | undefined): void {
    if (e && !this.errors.some((x) => x.message === e.message)) this.errors.push(e);
  }
  addErrors(...errs: (OpenAPIError | undefined)[]): void {
    for (const e of errs) this.addError(e);
  }
  merge(...others: (Result | undefined)[]): this {
    for (const o of others) {
      if (!o) continue;
      this.addErrors(...o.errors);
      this.matchCount += o.matchCount;
    }
    return this;
  }
  inc(): void {
    this.matchCount++;
  }
  get valid(): boolean {
    return this.errors.length === 0;
  }
}

type Kind = 'null' | 'boolean' | 'string' | 'int' | 'float' | 'array' | 'object';

function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'string';
    case 'number':
      return isInt64(v) ? 'int' : 'float';
    default:
      return Array.isArray(v) ? 'array' : 'object';
  }
}

/** swag.IsFloat64AJSONInteger: integral, or (above 1) within 1e-9 relative of its truncation. */
function isFloat64AJSONInteger(f: number): boolean {
  if (!Number.isFinite(f) || f < -(2 ** 53) || f > 2 ** 53) return false;
  if (Number.isInteger(f)) return true;
  const fa = Math.abs(f);
  if (fa <= 1 || f < 0) return false;
  return Math.abs(f - Math.trunc(f)) <= 1e-9 * fa;
}

interface CompiledPattern {
  source: string;
  re?: RE2Regexp;
  error?: string;
}

function compilePattern(source: string): CompiledPattern {
  try {
    return { source, re: compileRE2(source) };
  } catch (e) {
    return { source, error: e instanceof RE2SyntaxError ? e.message : String(e) };
  }
}

/** One compiled schema node. */
export interface SchemaNode {
  types: string[];
  nullable: boolean;
  /** The format kube keeps after StripUnsupportedFormatsPostProcess. */
  format: string;
  formatCheck?: (s: string) => boolean;
  /** For the number validator: the type and format it enforces ranges for (single type only). */
  numType: string;
  numFormat: string;
  enum?: readonly unknown[];
  maximum?: number;
  exclusiveMaximum: boolean;
  minimum?: number;
  exclusiveMinimum: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: CompiledPattern;
  maxItems?: number;
  minItems?: number;
  uniqueItems: boolean;
  items?: SchemaNode;
  itemsArray?: SchemaNode[];
  additionalItems?: { allows: boolean; schema?: SchemaNode };
  maxProperties?: number;
  minProperties?: number;
  required: string[];
  properties: Map<string, SchemaNode>;
  additionalProperties?: { allows: boolean; schema?: SchemaNode };
  patternProperties: { pattern: CompiledPattern; schema: SchemaNode }[];
  dependencies: Map<string, SchemaNode | string[]>;
  allOf: SchemaNode[];
  anyOf: SchemaNode[];
  oneOf: SchemaNode[];
  not?: SchemaNode;
  /** Whether the allOf/anyOf/oneOf/not/dependencies validator has anything to check. */
  hasSchemaProps: boolean;
}

/**
 * ConvertJSONSchemaPropsWithPostProcess(…, StripUnsupportedFormatsPostProcess) then NewSchemaValidator; with
 * `stripFormats` false, every format is kept, as kube's default validation (ToKubeOpenAPI) keeps them.
 */
export function compileSchemaNode(s: JSONSchemaProps, stripFormats = true): SchemaNode {
  const compile = (x: JSONSchemaProps) => compileSchemaNode(x, stripFormats);
  const types = s['x-kubernetes-int-or-string'] ? ['integer', 'string'] : s.type ? [s.type] : [];
  const format = stripFormats ? supportedFormat(types.length === 1 ? types[0] : '', s.format) : (s.format ?? '');
  let numType = '';
  let numFormat = '';
  if (types.length === 1) {
    if (types[0] === 'integer') {
      numType = 'integer';
      if (format === 'int32' || format === 'int64') numFormat = format;
    } else if (types[0] === 'number') {
      numType = 'number';
      if (format === 'float' || format === 'double') numFormat = format;
    }
  }
  // A JSON null in a field is the field being absent.
  const orBool = (x: JSONSchemaProps | boolean | undefined | null) =>
    x == null ? undefined : typeof x === 'boolean' ? { allows: x } : { allows: true, schema: compile(x) };
  const node: Omit<SchemaNode, 'hasSchemaProps'> = {
    types,
    nullable: s.nullable === true,
    format,
    formatCheck: format ? formatChecker(format) : undefined,
    numType,
    numFormat,
    enum: s.enum && s.enum.length > 0 ? s.enum : undefined,
    maximum: s.maximum ?? undefined,
    exclusiveMaximum: s.exclusiveMaximum === true,
    minimum: s.minimum ?? undefined,
    exclusiveMinimum: s.exclusiveMinimum === true,
    multipleOf: s.multipleOf ?? undefined,
    maxLength: s.maxLength ?? undefined,
    minLength: s.minLength ?? undefined,
    pattern: s.pattern ? compilePattern(s.pattern) : undefined,
    maxItems: s.maxItems ?? undefined,
    minItems: s.minItems ?? undefined,
    uniqueItems: s.uniqueItems === true,
    items: s.items != null && !Array.isArray(s.items) ? compile(s.items) : undefined,
    itemsArray: Array.isArray(s.items) ? s.items.map(compile) : undefined,
    additionalItems: orBool(s.additionalItems),
    maxProperties: s.maxProperties ?? undefined,
    minProperties: s.minProperties ?? undefined,
    required: s.required ?? [],
    properties: new Map(Object.entries(s.properties ?? {}).map(([k, v]) => [k, compile(v)])),
    additionalProperties: orBool(s.additionalProperties),
    patternProperties: Object.entries(s.patternProperties ?? {}).map(([k, v]) => ({
      pattern: compilePattern(k),
      schema: compile(v),
    })),
    dependencies: new Map(Object.entries(s.dependencies ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v : compile(v)])),
    allOf: (s.allOf ?? []).map(compile),
    anyOf: (s.anyOf ?? []).map(compile),
    oneOf: (s.oneOf ?? []).map(compile),
    not: s.not != null ? compile(s.not) : undefined,
  };
  const hasSchemaProps = node.allOf.length + node.anyOf.length + node.oneOf.length + node.dependencies.size > 0 || node.not !== undefined;
  return { ...node, hasSchemaProps };
}

/** SchemaValidator.Validate: `path` is kube-openapi's dotted name of the value ("" at the root). */
export function validateNode(n: SchemaNode, data: unknown, path: string): Result {
  const result = new Result();
  validateInto(n, data, path, result);
  return result;
}

/**
 * SchemaValidator.Validate merging straight into `acc`: the same errors in the same order and the same match count
 * as kube-openapi's merge of each validator's own Result, without allocating one per validator.
 */
function validateInto(n: SchemaNode, data: unknown, path: string, acc: Result): void {
  const kind = kindOf(data);
  if (kind === 'null') {
    // Only the type and enum validators look at a nil value.
    validateType(n, null, kind, path, acc);
    validateEnum(n, null, kind, path, acc);
    return;
  }
  if (n.types.length > 0 || n.format !== '') {
    validateType(n, data, kind, path, acc);
    acc.inc();
  }
  if (n.hasSchemaProps) validateSchemaProps(n, data, kind, path, acc);
  else acc.inc();
  acc.inc();
  if (kind === 'string') {
    validateString(n, data as string, path, acc);
    acc.inc();
    if (n.formatCheck) {
      if (!n.formatCheck(data as string)) acc.addError(E.invalidType(path, n.format, data));
      acc.inc();
    }
  } else if (kind === 'int' || kind === 'float') {
    validateNumber(n, data as number, kind, path, acc);
    acc.inc();
  } else if (kind === 'array') {
    validateSlice(n, data as unknown[], path, acc);
    acc.inc();
  }
  validateEnum(n, data, kind, path, acc);
  acc.inc();
  if (kind === 'object') {
    validateObject(n, data as Record<string, unknown>, path, acc);
    acc.inc();
  }
  acc.inc();
}

/** typeValidator: counts one match when the type fits, adds its error otherwise. */
function validateType(n: SchemaNode, data: unknown, kind: Kind, path: string, acc: Result): void {
  if (kind === 'null') {
    if (n.types.length > 0 && !n.types.includes('null') && !n.nullable) acc.addError(E.invalidType(path, n.types.join(','), 'null'));
    else acc.inc();
    return;
  }
  const [schType, format] = schemaInfo(kind);
  const isFloatInt = schType === 'number' && isFloat64AJSONInteger(data as number) && n.types.includes('integer');
  const isIntFloat = schType === 'integer' && n.types.includes('number');
  if (
    kind !== 'string' &&
    kind !== 'array' &&
    n.format !== '' &&
    !(n.types.includes(schType) || format === n.format || isFloatInt || isIntFloat)
  ) {
    acc.addError(E.invalidType(path, n.format, format));
    return;
  }
  if (!(n.types.includes('number') || n.types.includes('integer')) && n.format !== '' && (kind === 'string' || kind === 'array')) {
    acc.inc();
    return;
  }
  if (!(n.types.includes(schType) || isFloatInt || isIntFloat)) {
    acc.addError(E.invalidType(path, n.types.join(','), schType));
    return;
  }
  acc.inc();
}

const SCHEMA_INFO: Record<Kind, readonly [string, string]> = {
  null: ['null', ''],
  boolean: ['boolean', ''],
  string: ['string', ''],
  int: ['integer', 'int64'],
  float: ['number', 'float64'],
  array: ['array', ''],
  object: ['object', ''],
};

function schemaInfo(kind: Kind): readonly [string, string] {
  return SCHEMA_INFO[kind];
}

function validateSchemaProps(n: SchemaNode, data: unknown, kind: Kind, path: string, main: Result): void {
  if (n.anyOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    for (const s of n.anyOf) {
      const r = validateNode(s, data, path);
      if (r.valid) {
        best = undefined;
        firstSuccess ??= r;
        break;
      }
      if (!best || r.matchCount > best.matchCount) best = r;
    }
    if (!firstSuccess) main.addErrors(E.plain(`${goQuote(path)} must validate at least one schema (anyOf)`));
    if (best) main.merge(best);
    else if (firstSuccess) main.merge(firstSuccess);
  }
  if (n.oneOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    let validated = 0;
    for (const s of n.oneOf) {
      const r = validateNode(s, data, path);
      if (r.valid) {
        validated++;
        best = undefined;
        firstSuccess ??= r;
        continue;
      }
      if (validated === 0 && (!best || r.matchCount > best.matchCount)) best = r;
    }
    if (validated !== 1) {
      const more = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
      main.addErrors(E.plain(`${goQuote(path)} must validate one and only one schema (oneOf). ${more}`));
      if (best) main.merge(best);
    } else if (firstSuccess) main.merge(firstSuccess);
  }
  if (n.allOf.length > 0) {
    let validated = 0;
    for (const s of n.allOf) {
      const r = validateNode(s, data, path);
      if (r.valid) validated++;
      main.merge(r);
    }
    if (validated !== n.allOf.length)
      main.addErrors(E.plain(`${goQuote(path)} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}`));
  }
  if (n.not && validateNode(n.not, data, path).valid) main.addErrors(E.plain(`${goQuote(path)} must not validate the schema (not)`));
  if (n.dependencies.size > 0 && kind === 'object') {
    const obj = data as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      const dep = n.dependencies.get(key);
      if (dep === undefined) continue;
      if (!Array.isArray(dep)) {
        validateInto(dep, data, `${path}.${key}`, main);
        continue;
      }
      for (const depKey of dep) if (!Object.hasOwn(obj, depKey)) main.addErrors(E.plain(`${goQuote(path)} has a dependency on ${depKey}`));
    }
  }
  main.inc();
}

/** Counts code points, as utf8.RuneCountInString. */
function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    n++;
  }
  return n;
}

function validateString(n: SchemaNode, s: string, path: string, acc: Result): void {
  // The first failing check only, as kube-openapi's stringValidator returns early.
  const error = stringError(n, s, path);
  if (error) acc.addError(error);
}

function stringError(n: SchemaNode, s: string, path: string): ReturnType<typeof E.tooLong> | undefined {
  if (n.maxLength !== undefined && runeCount(s) > n.maxLength) return E.tooLong(path, n.maxLength, s);
  if (n.minLength !== undefined && runeCount(s) < n.minLength) return E.tooShort(path, n.minLength, s);
  const p = n.pattern;
  if (!p) return undefined;
  if (!p.re) return E.failedPattern(path, `${p.source}, but pattern is invalid: ${p.error}`, s);
  if (!p.re.test(s)) return E.failedPattern(path, p.source, s);
  return undefined;
}

/** IsValueValidAgainstRange: does a value fit the schema's numeric type and format? */
function rangeError(val: number, n: SchemaNode, prefix: string, path: string): OpenAPIError | undefined {
  let ok = true;
  if (n.numType === 'integer') {
    ok = isInt64(val) && (n.numFormat !== 'int32' || (val >= -(2 ** 31) && val < 2 ** 31));
  } else if (n.numFormat === 'float') {
    ok = Number.isFinite(Math.fround(val));
  }
  if (ok) return undefined;
  return E.plain(
    n.numFormat
      ? `${prefix} value must be of type ${n.numType} with format ${n.numFormat} in ${path}`
      : `${prefix} value must be of type ${n.numType} (default format) in ${path}`,
  );
}

function validateNumber(n: SchemaNode, val: number, kind: Kind, path: string, res: Result): void {
  if (n.numType === '' && n.multipleOf === undefined && n.maximum === undefined && n.minimum === undefined) {
    res.inc();
    return;
  }
  const resMultiple = new Result();
  const resMinimum = new Result();
  const resMaximum = new Result();
  const isInt = kind === 'int';
  res.addError(rangeError(val, n, 'Checked', path));
  if (n.multipleOf !== undefined) {
    const factor = n.multipleOf;
    resMultiple.addErrors(rangeError(factor, n, 'MultipleOf', path));
    resMultiple.addErrors(resMultiple.valid && isInt ? multipleOfInt(path, val, Math.trunc(factor)) : multipleOfFloat(path, val, factor));
  }
  if (n.maximum !== undefined) {
    const max = n.maximum;
    resMaximum.addErrors(rangeError(max, n, 'Maximum boundary', path));
    if (resMaximum.valid && isInt) {
      const m = Math.trunc(max);
      if (n.exclusiveMaximum ? val >= m : val > m) resMaximum.addErrors(E.exceedsMaximum(path, goNumber(m), n.exclusiveMaximum, val));
    } else if (n.exclusiveMaximum ? val >= max : val > max)
      resMaximum.addErrors(E.exceedsMaximum(path, goFloat(max), n.exclusiveMaximum, val));
  }
  if (n.minimum !== undefined) {
    const min = n.minimum;
    resMinimum.addErrors(rangeError(min, n, 'Minimum boundary', path));
    if (resMinimum.valid && isInt) {
      const m = Math.trunc(min);
      if (n.exclusiveMinimum ? val <= m : val < m) resMinimum.addErrors(E.exceedsMinimum(path, goNumber(m), n.exclusiveMinimum, val));
    } else if (n.exclusiveMinimum ? val <= min : val < min)
      resMinimum.addErrors(E.exceedsMinimum(path, goFloat(min), n.exclusiveMinimum, val));
  }
  res.merge(resMultiple, resMinimum, resMaximum);
  res.inc();
}

function multipleOfInt(path: string, val: number, factor: number): OpenAPIError | undefined {
  if (factor <= 0) return E.multipleOfMustBePositive(path, goNumber(factor), factor);
  if (val % factor !== 0) return E.notMultipleOf(path, goNumber(factor), val);
  return undefined;
}

function multipleOfFloat(path: string, val: number, factor: number): OpenAPIError | undefined {
  if (factor <= 0) return E.multipleOfMustBePositive(path, goFloat(factor), factor);
  const mult = factor < 1 ? (1 / factor) * val : val / factor;
  if (!isFloat64AJSONInteger(mult)) return E.notMultipleOf(path, goFloat(factor), val);
  return undefined;
}

function validateSlice(n: SchemaNode, arr: unknown[], path: string, result: Result): void {
  const size = arr.length;
  if (n.items) for (let i = 0; i < size; i++) validateInto(n.items, arr[i], `${path}[${i}]`, result);
  let itemsSize = 0;
  if (n.itemsArray && n.itemsArray.length > 0) {
    itemsSize = n.itemsArray.length;
    for (let i = 0; i < itemsSize && i < size; i++) validateInto(n.itemsArray[i] as SchemaNode, arr[i], `${path}[${i}]`, result);
  }
  if (n.additionalItems && itemsSize < size) {
    if (itemsSize > 0 && !n.additionalItems.allows) result.addErrors(E.plain("array doesn't allow for additional items"));
    const extra = n.additionalItems.schema;
    // kube-openapi's loop bound (size-itemsSize+1), kept inside the array.
    if (extra) for (let i = itemsSize; i < size - itemsSize + 1 && i < size; i++) validateInto(extra, arr[i], `${path}[${i}]`, result);
  }
  if (n.minItems !== undefined && size < n.minItems) result.addErrors(E.tooFewItems(path, n.minItems, size));
  if (n.maxItems !== undefined && size > n.maxItems) result.addErrors(E.tooManyItems(path, n.maxItems, size));
  if (n.uniqueItems) {
    for (let i = 1; i < size; i++) {
      if (arr.slice(0, i).some((u) => deepEqual(arr[i], u))) {
        result.addErrors(E.duplicateItems(path));
        break;
      }
    }
  }
  result.inc();
}

/** reflect.DeepEqual on decoded JSON (int64 and float64 differ in Go; here both are numbers of one value). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  return ak.length === Object.keys(bo).length && ak.every((k) => Object.hasOwn(bo, k) && deepEqual(ao[k], bo[k]));
}

/**
 * basicCommonValidator: the value, converted to each enum value's Go type where Go can convert it, must equal it.
 * Go converts between numbers (1.5 → int64 1 matches enum 1) and from an integer to a string (65 → "A"), and
 * never matches nil.
 */
function validateEnum(n: SchemaNode, data: unknown, kind: Kind, path: string, acc: Result): void {
  if (!n.enum) return;
  if (kind !== 'null') {
    for (const e of n.enum) {
      if (enumMatches(data, kind, e)) return;
    }
  }
  acc.addError(E.enumFail(path, kind === 'null' ? undefined : data, n.enum));
}

function enumMatches(data: unknown, kind: Kind, e: unknown): boolean {
  if (e === null || e === undefined) return false;
  const ek = kindOf(e);
  switch (ek) {
    case 'int':
      return (kind === 'int' || kind === 'float') && Math.trunc(data as number) === e;
    case 'float':
      return (kind === 'int' || kind === 'float') && data === e;
    case 'string':
      if (kind === 'int') return goIntToString(data as number) === e;
      return kind === 'string' && data === e;
    case 'boolean':
      return kind === 'boolean' && data === e;
    case 'array':
      return kind === 'array' && deepEqual(data, e);
    default:
      return kind === 'object' && deepEqual(data, e);
  }
}

/** Go's string(rune(i)): U+FFFD for what is not a code point. */
function goIntToString(i: number): string {
  return i >= 0 && i <= 0x10ffff && !(i >= 0xd800 && i <= 0xdfff) ? String.fromCodePoint(i) : '\ufffd';
}

function validateObject(n: SchemaNode, obj: Record<string, unknown>, path: string, res: Result): void {
  const keys = Object.keys(obj);
  const numKeys = keys.length;
  if (n.minProperties !== undefined && numKeys < n.minProperties) res.addErrors(E.tooFewProperties(path, n.minProperties, numKeys));
  if (n.maxProperties !== undefined && numKeys > n.maxProperties) res.addErrors(E.tooManyProperties(path, n.maxProperties, numKeys));
  if (n.additionalProperties && !n.additionalProperties.allows) {
    for (const k of keys) {
      if (!n.properties.has(k) && !n.patternProperties.some((p) => p.pattern.re?.test(k))) res.addErrors(E.propertyNotAllowed(path, k));
    }
  } else if (n.patternProperties.length > 0 || n.additionalProperties?.schema) {
    const extra = n.additionalProperties?.schema;
    for (const key of keys) {
      const matched = n.patternProperties.length > 0 && validatePatternProperties(n, key, obj[key], path, res).length > 0;
      if (!(n.properties.has(key) || matched) && extra) validateInto(extra, obj[key], `${path}.${key}`, res);
    }
  }
  for (const [name, schema] of n.properties) {
    if (Object.hasOwn(obj, name)) validateInto(schema, obj[name], path === '' ? name : `${path}.${name}`, res);
  }
  for (const k of n.required) if (!Object.hasOwn(obj, k)) res.addError(E.required(`${path}.${k}`));
  if (n.patternProperties.length > 0) {
    for (const key of keys) {
      const patterns = validatePatternProperties(n, key, obj[key], path, res);
      if (!n.properties.has(key)) for (const p of patterns) validateInto(p.schema, obj[key], `${path}.${key}`, res);
    }
  }
}

function validatePatternProperties(n: SchemaNode, key: string, value: unknown, path: string, res: Result): SchemaNode['patternProperties'] {
  const matched = n.patternProperties.filter((p) => p.pattern.re?.test(key));
  for (const p of matched) validateInto(p.schema, value, `${path}.${key}`, res);
  return matched;
}
