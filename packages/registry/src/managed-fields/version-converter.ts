import { type Converter, type KubeObject, parseGroupVersion, type TypedSchema } from '@kapi/apimachinery';
import { convertObject } from '../convert.ts';
import type { ResourceDefinition } from '../resource-definition.ts';
import { typedSchemaOf } from './typed-schema.ts';

/** A version of the kind that is not served (any more): the managers recorded in it are dropped, as SMD drops them. */
class MissingVersionError extends Error {}

/**
 * The versions of one kind as the field manager's Updater sees them: each API version's typed schema (built once),
 * and values converted between versions with the kind's own converters, so managers recorded through another version
 * are compared in theirs (kube's versionConverter). A kind that converts asynchronously (a webhook) cannot convert
 * inside the synchronous merge: its values pass unchanged, which holds while its versions share a shape.
 */
export class KindVersions {
  readonly #def: ResourceDefinition;
  readonly #typed = new Map<string, TypedSchema>();

  constructor(def: ResourceDefinition) {
    this.#def = def;
  }

  /** The version name of an apiVersion of this kind, or undefined (another group, or a version not defined). */
  #versionOf(apiVersion: string): string | undefined {
    const gv = parseGroupVersion(apiVersion);
    if (gv.group !== this.#def.group || !this.#def.version(gv.version)) return undefined;
    return gv.version;
  }

  /** The typed schema of a version name. */
  typed(version: string): TypedSchema {
    let t = this.#typed.get(version);
    if (!t) {
      t = typedSchemaOf(this.#def, version);
      this.#typed.set(version, t);
    }
    return t;
  }

  /** The typed schema of an apiVersion; `fallback` for one the kind does not have. */
  typeFor(apiVersion: string, fallback: TypedSchema): TypedSchema {
    const v = this.#versionOf(apiVersion);
    return v ? this.typed(v) : fallback;
  }

  readonly converter: Converter = {
    convert: (value, from, to) => {
      if (from === to) return value;
      const v = this.#versionOf(to);
      if (!v || !this.#versionOf(from)) throw new MissingVersionError(`no version ${to} of ${this.#def.kind}`);
      if (this.#def.conversion) return value;
      return convertObject(this.#def, value as KubeObject, v);
    },
    isMissingVersionError: (err) => err instanceof MissingVersionError,
  };
}
