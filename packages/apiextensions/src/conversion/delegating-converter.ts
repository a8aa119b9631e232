import {
  type FieldError,
  fieldErrors,
  fieldErrorsMessage,
  formatAPIVersionKind,
  isQualifiedName,
  isValidLabelValue,
  type KubeObject,
} from '@kapi/apimachinery';
import { type CRConverter, nopConverter, type UnstructuredList } from './cr-converter.ts';
import { formatGV, goTypeOf } from './group-version-kind.ts';

/** What the conversion of a CRD's objects needs of the CRD: its group and versions. */
export interface ConversionTarget {
  group: string;
  versions: readonly { name: string }[];
}

/** A list as the delegating converter takes and returns it. */
export interface ObjectList {
  apiVersion: string;
  kind: string;
  items: KubeObject[];
  [field: string]: unknown;
}

/** TotalAnnotationSizeLimitB. */
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** metav1validation.ValidateLabels / apivalidation.ValidateAnnotations (whose path kube spells metadata.annotation). */
function metadataMapErrors(field: 'labels' | 'annotations', m: Record<string, string>): FieldError[] {
  const errs: FieldError[] = [];
  if (field === 'labels') {
    for (const [k, v] of Object.entries(m)) {
      for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid('metadata.labels', k, msg));
      for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid('metadata.labels', v, msg));
    }
    return errs;
  }
  let bytes = 0;
  for (const [k, v] of Object.entries(m)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid('metadata.annotation', k, msg));
    bytes += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (bytes > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldErrors.tooLong('metadata.annotation', TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

/** kube's validateConvertedObject: kind, name, namespace and uid stay. */
function validateConvertedObject(original: KubeObject, converted: KubeObject): void {
  const a = (original.metadata ?? {}) as Record<string, unknown>;
  const b = (isMap(converted.metadata) ? converted.metadata : {}) as Record<string, unknown>;
  const same = (what: string, x: unknown, y: unknown) => {
    if (str(x) !== str(y)) throw new Error(`must have the same ${what}: ${str(x)} != ${str(y)}`);
  };
  same('kind', original.kind, converted.kind);
  same('name', a.name, b.name);
  same('namespace', a.namespace, b.namespace);
  same('UID', a.uid, b.uid);
}

/**
 * kube's restoreObjectMeta: the converted object gets the original's metadata back, keeping only the labels and
 * annotations the converter set, which must be string maps with valid keys and values.
 */
function restoreObjectMeta(original: KubeObject, converted: KubeObject): void {
  const c = converted as unknown as Record<string, unknown>;
  const o = original as unknown as Record<string, unknown>;
  const found = Object.hasOwn(c, 'metadata');
  const previouslyFound = Object.hasOwn(o, 'metadata');
  if (!found && !previouslyFound) return;
  if (previouslyFound && !found) throw new Error('missing metadata in converted object');
  const convertedMeta = c.metadata;
  const originalMeta = previouslyFound ? o.metadata : {};
  if (!isMap(convertedMeta)) throw new Error(`invalid metadata of type ${goTypeOf(convertedMeta)} in converted object`);
  if (!isMap(originalMeta)) throw new Error(`invalid metadata of type ${goTypeOf(originalMeta)} in input object`);
  const result: Record<string, unknown> = structuredClone(originalMeta);
  for (const field of ['labels', 'annotations'] as const) {
    const value = convertedMeta[field];
    if (value === undefined || value === null) {
      delete result[field];
      continue;
    }
    if (!isMap(value)) throw new Error(`invalid metadata.${field} of type ${goTypeOf(value)} in converted object`);
    const before = isMap(originalMeta[field]) ? (originalMeta[field] as Record<string, unknown>) : {};
    let changed = Object.keys(before).length !== Object.keys(value).length;
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') throw new Error(`metadata.${field}[${k}] must be a string, but is ${goTypeOf(v)} in converted object`);
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const errs = metadataMapErrors(field, value as Record<string, string>);
      if (errs.length) throw new Error(fieldErrorsMessage(errs));
    }
    result[field] = value;
  }
  c.metadata = result;
}

/**
 * kube's delegatingCRConverter (apiextensions-apiserver conversion/converter.go) behind its safeConverterWrapper: checks
 * the versions, sends only the objects not yet in the target version to the delegate (None or Webhook), and checks what
 * comes back — as many objects, each in the target group/version, of the same kind, name, namespace and uid, its
 * metadata restored but for labels and annotations — with kube's messages. The input is never changed.
 */
export class DelegatingConverter {
  readonly #validVersions: ReadonlySet<string>;
  readonly #delegate: CRConverter;

  constructor(crd: ConversionTarget, delegate: CRConverter) {
    this.#validVersions = new Set(crd.versions.map((v) => `${crd.group}/${v.name}`));
    this.#delegate = delegate;
  }

  /** One object in `targetGV` ("group/version"). */
  async convertObject(obj: KubeObject, targetGV: string): Promise<KubeObject> {
    const out = await this.#convert(structuredClone(obj), undefined, targetGV);
    return out.items[0] as KubeObject;
  }

  /** A list and each of its items in `targetGV`. */
  async convertList(list: ObjectList, targetGV: string): Promise<ObjectList> {
    const copy = structuredClone(list);
    const out = await this.#convert(undefined, copy, targetGV);
    return { ...copy, apiVersion: targetGV, items: out.items };
  }

  async #convert(single: KubeObject | undefined, list: ObjectList | undefined, targetGV: string): Promise<UnstructuredList> {
    const inApiVersion = single ? single.apiVersion : list?.apiVersion;
    const inGVK = formatAPIVersionKind(inApiVersion, single ? single.kind : list?.kind);
    const items = single ? [single] : (list?.items ?? []);
    const desired = formatGV(targetGV);
    if (!this.#validVersions.has(desired)) throw new Error(`request to convert CR to an invalid group/version: ${desired}`);
    if (!this.#validVersions.has(formatGV(inApiVersion)))
      throw new Error(`request to convert CR from an invalid group/version: ${formatGV(inApiVersion)}`);
    const toConvert: KubeObject[] = [];
    items.forEach((item, i) => {
      const gv = formatGV(item.apiVersion);
      if (!this.#validVersions.has(gv))
        throw new Error(`request to convert CR list failed, list index ${i} has invalid group/version: ${gv}`);
      if (item.apiVersion !== desired) toConvert.push(item);
    });
    if (toConvert.length === 0) return { items };
    // kube's isEmptyUnstructuredObject: an object of nothing but apiVersion and kind (the cacher's smoke test) is
    // converted by the None converter, never sent to a webhook.
    const delegate = single && Object.keys(single).length === 2 && 'kind' in single ? nopConverter : this.#delegate;
    // The delegate may change what it gets; the originals are kept to check and restore metadata against.
    const sent = toConvert.map((o) => structuredClone(o));
    const wrapper: UnstructuredList = { items: sent };
    if (list) Object.assign(wrapper, { apiVersion: list.apiVersion, kind: list.kind });
    let converted: UnstructuredList;
    try {
      converted = await delegate.convert(wrapper, desired);
    } catch (err) {
      throw new Error(`conversion for ${inGVK} failed: ${(err as Error).message}`);
    }
    if (converted.items.length !== toConvert.length)
      throw new Error(`conversion for ${inGVK} returned ${converted.items.length} objects, expected ${toConvert.length}`);
    let index = 0;
    const out = items.map((original) => {
      if (original.apiVersion === desired) return original;
      const got = converted.items[index] as KubeObject;
      // kube counts from 1 in these messages: its index is advanced before the checks.
      index++;
      const at = `conversion for ${inGVK} returned invalid converted object at index ${index}`;
      if (formatGV(got.apiVersion) !== desired)
        throw new Error(`${at}: invalid groupVersion (expected ${desired}, received ${formatGV(got.apiVersion)})`);
      if (str(got.kind) !== str(original.kind))
        throw new Error(`${at}: invalid kind (expected ${str(original.kind)}, received ${str(got.kind)})`);
      try {
        validateConvertedObject(original, got);
      } catch (err) {
        throw new Error(`${at}: ${(err as Error).message}`);
      }
      try {
        restoreObjectMeta(original, got);
      } catch (err) {
        throw new Error(`conversion for ${inGVK} returned invalid metadata in object at index ${index}: ${(err as Error).message}`);
      }
      return got;
    });
    return { items: out };
  }
}
