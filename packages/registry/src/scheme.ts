import {
  formatGroupKind,
  formatGroupResource,
  formatGroupVersion,
  type GroupResource,
  type GroupVersion,
  type GroupVersionKind,
  groupVersionKindOf,
  type KubeObject,
  newBadRequest,
  parseGroupVersion,
} from '@kapi/apimachinery';
import { convertObject } from './convert.ts';
import { type JSONSchema, toOpenAPISchema } from './openapi.ts';
import type { ResourceDefinition, ResourceVersion } from './resource-definition.ts';

/** A definition and one of its versions, as a lookup by group/version/kind finds them. */
export interface VersionedDefinition {
  readonly definition: ResourceDefinition;
  readonly version: ResourceVersion;
}

/**
 * The kinds a server knows: lookups by kind, resource and the names kubectl accepts, the served group-versions,
 * each version's OpenAPI schema, and conversion between the versions of a kind. One group holds a kind and a
 * plural at most once; short names may repeat across groups (kubectl then picks, as with kube-apiserver).
 */
export class Scheme {
  readonly #byGroupKind = new Map<string, ResourceDefinition>();
  readonly #byGroupResource = new Map<string, ResourceDefinition>();
  readonly #all: ResourceDefinition[] = [];

  /** Adds definitions; throws when a group already has the kind or the plural. */
  add(...defs: ResourceDefinition[]): this {
    for (const def of defs) {
      const gk = formatGroupKind(def.groupKind);
      const gr = formatGroupResource(def.groupResource);
      if (this.#byGroupKind.has(gk)) throw new Error(`kind ${gk} is already registered`);
      if (this.#byGroupResource.has(gr)) throw new Error(`resource ${gr} is already registered`);
      this.#byGroupKind.set(gk, def);
      this.#byGroupResource.set(gr, def);
      this.#all.push(def);
    }
    return this;
  }

  /** Every definition, in the order added. */
  definitions(): readonly ResourceDefinition[] {
    return this.#all;
  }

  /** The definition and version of a group/version/kind, served or not. */
  byKind(gvk: GroupVersionKind): VersionedDefinition | undefined {
    const definition = this.#byGroupKind.get(formatGroupKind(gvk));
    const version = definition?.version(gvk.version);
    return definition && version ? { definition, version } : undefined;
  }

  /** The definition of a group/resource ("widgets" in "example.kapi.dev"). */
  byResource(gr: GroupResource): ResourceDefinition | undefined {
    return this.#byGroupResource.get(formatGroupResource(gr));
  }

  /**
   * Definitions a user's word names, as kubectl resolves it: a plural, singular, short name or kind
   * (any case), optionally qualified by group ("widgets.example.kapi.dev", "wd.example.kapi.dev").
   */
  find(name: string): ResourceDefinition[] {
    const lower = name.toLowerCase();
    return this.#all.filter((d) => {
      const names = [d.plural, d.singular, d.kind.toLowerCase(), ...d.shortNames];
      if (names.includes(lower)) return true;
      return d.group !== '' && lower.endsWith(`.${d.group}`) && names.includes(lower.slice(0, -d.group.length - 1));
    });
  }

  /** Every served group-version, groups in the order added, versions in each definition's order. */
  groupVersions(): GroupVersion[] {
    const seen = new Map<string, GroupVersion>();
    for (const d of this.#all)
      for (const v of d.versions) {
        const gv = { group: d.group, version: v.name };
        if (v.served && !seen.has(formatGroupVersion(gv))) seen.set(formatGroupVersion(gv), gv);
      }
    return [...seen.values()];
  }

  /** The kinds served in a group-version ("example.kapi.dev/v1"). */
  definitionsIn(gv: GroupVersion | string): VersionedDefinition[] {
    const { group, version } = typeof gv === 'string' ? parseGroupVersion(gv) : gv;
    const out: VersionedDefinition[] = [];
    for (const definition of this.#all) {
      const v = definition.group === group ? definition.version(version) : undefined;
      if (v?.served) out.push({ definition, version: v });
    }
    return out;
  }

  /** The OpenAPI v3 schema of a group/version/kind. */
  openAPISchema(gvk: GroupVersionKind): JSONSchema {
    const found = this.byKind(gvk);
    if (!found) throw new Error(`no kind ${JSON.stringify(gvk.kind)} is registered for version ${JSON.stringify(formatGroupVersion(gvk))}`);
    return toOpenAPISchema(found.definition, found.version.name);
  }

  /** Converts `obj` to `toApiVersion` (same group) through its kind's hub; see convertObject. */
  convert(obj: KubeObject, toApiVersion: string): KubeObject {
    const gvk = groupVersionKindOf(obj);
    const target = parseGroupVersion(toApiVersion);
    const definition = this.#byGroupKind.get(formatGroupKind(gvk));
    if (!definition?.version(gvk.version))
      throw newBadRequest(`no kind ${JSON.stringify(gvk.kind)} is registered for version ${JSON.stringify(obj.apiVersion ?? '')}`);
    if (target.group !== gvk.group)
      throw newBadRequest(`${formatGroupKind(gvk)} cannot be converted to ${JSON.stringify(toApiVersion)}: another group`);
    return convertObject(definition, obj, target.version);
  }
}
