import {
  copyJson,
  formatGroupVersion,
  type KubeObject,
  newBadRequest,
  newInternalError,
  parseGroupVersion,
  type Status,
  StatusError,
  toStatusError,
} from '@kapi/apimachinery';
import type { ResourceDefinition, ResourceVersion } from './resource-definition.ts';

function versionOrThrow(def: ResourceDefinition, name: string): ResourceVersion {
  const v = def.version(name);
  if (!v)
    throw newBadRequest(
      `no kind ${JSON.stringify(def.kind)} is registered for version ${JSON.stringify(formatGroupVersion({ group: def.group, version: name }))}`,
    );
  return v;
}

/**
 * Converts an object of kind `def` to version `toVersion` through the hub (the storage version): the source's
 * toHub, then the target's fromHub. A version without converters has the hub's shape, so only apiVersion
 * changes (a CRD's conversion strategy None). The input is never changed; converters get a copy of their own.
 * A kind with an (asynchronous) `conversion` converts only through convertObjects.
 */
export function convertObject(def: ResourceDefinition, obj: KubeObject, toVersion: string): KubeObject {
  if (def.conversion) throw new Error(`${def.kind} converts asynchronously: use convertObjects`);
  const from = versionOrThrow(def, parseGroupVersion(obj.apiVersion ?? '').version);
  const to = versionOrThrow(def, toVersion);
  const apiVersion = formatGroupVersion({ group: def.group, version: to.name });
  let out = copyJson(obj);
  if (from !== to) {
    const hub = def.storageVersion;
    if (from !== hub && from.toHub) out = from.toHub(out);
    out.apiVersion = formatGroupVersion({ group: def.group, version: hub.name });
    if (to !== hub && to.fromHub) out = to.fromHub(out);
  }
  out.apiVersion = apiVersion;
  out.kind = def.kind;
  return out;
}

/**
 * A failed (asynchronous) conversion as kube-apiserver answers it: the converter's error is a plain Go error, which its
 * handlers write as a 500 Status without a reason carrying the error's text (ErrorToAPIStatus), e.g. `conversion for
 * <gvk> failed: conversion webhook for <gvk> failed: …`.
 */
export class ConversionError extends StatusError {
  constructor(cause: unknown) {
    super({ code: 500, message: cause instanceof Error ? cause.message : String(cause) }, { cause });
    this.name = 'ConversionError';
  }

  /**
   * The object of the ERROR event that ends a watch on `err`: kube's watch turns an error that is not a Status (a
   * failed conversion) into an InternalError (`Internal error occurred: …`).
   */
  static watchStatus(err: unknown): Status {
    return (err instanceof ConversionError ? newInternalError(err.message) : toStatusError(err)).status;
  }
}

/**
 * Converts `objects` of kind `def` (a list's items unless `list` is false) to version `toVersion`, in order:
 * synchronously through convertObject (an array, no promise, so a kind without an asynchronous conversion pays no
 * await per object), or in one call of the kind's `conversion` (a promise). A failed conversion is a ConversionError;
 * a StatusError (a version the kind lacks) passes as it is.
 */
export function convertObjects(
  def: ResourceDefinition,
  objects: readonly KubeObject[],
  toVersion: string,
  list = true,
): KubeObject[] | Promise<KubeObject[]> {
  const conversion = def.conversion;
  if (!conversion) return objects.map((o) => convertObject(def, o, toVersion));
  versionOrThrow(def, toVersion);
  return conversion.convert(objects, toVersion, list).then(
    (out) => {
      if (out.length !== objects.length)
        throw new ConversionError(new Error(`conversion of ${objects.length} ${def.kind} objects returned ${out.length} objects`));
      return out;
    },
    (err: unknown) => {
      throw err instanceof StatusError ? err : new ConversionError(err);
    },
  );
}

/** One object through convertObjects. */
export function convertOne(def: ResourceDefinition, obj: KubeObject, toVersion: string): KubeObject | Promise<KubeObject> {
  const out = convertObjects(def, [obj], toVersion, false);
  return Array.isArray(out) ? (out[0] as KubeObject) : out.then((o) => o[0] as KubeObject);
}
