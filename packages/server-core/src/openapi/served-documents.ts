import { createHash } from 'node:crypto';
import type { ResourceDefinition } from '@kapi/registry';
import {
  type DiscoverySource,
  definitionsOf,
  type SubresourceInfo,
  subresourcesIn,
  type VirtualResourceInfo,
  virtualResourcesOf,
} from '../discovery/documents.ts';
import { type ExternalOpenAPI, mergeSwagger } from './external.ts';
import { groupVersionPath } from './names.ts';
import { swaggerDocument } from './v2-document.ts';
import { encodeSwaggerProtobuf } from './v2-protobuf.ts';
import { DEFAULT_OPENAPI_INFO, groupVersionDocument, type OpenAPIInfo } from './v3-document.ts';

/** One document's bytes as served, with kube-openapi's ETag (upper-case hex SHA-512 of the JSON, unquoted). */
export interface ServedDocument {
  readonly json: Buffer;
  readonly etag: string;
  readonly lastModified: Date;
}

/** The Swagger 2.0 document: JSON, and its gnostic protobuf encoding made on first use. */
export interface ServedSwagger extends ServedDocument {
  protobuf(): Buffer;
}

/** The /openapi/v3 index: the served group-versions and the URL of each one's document. */
export interface OpenAPIV3Index {
  paths: Record<string, { serverRelativeURL: string }>;
}

/** kube-openapi's computeETag: `%X` of sha512. */
export function openAPIETag(bytes: Uint8Array): string {
  return createHash('sha512').update(bytes).digest('hex').toUpperCase();
}

/** `/openapi/v3/<gv path>?hash=<etag>`, as kube-openapi's constructServerRelativeURL writes it. */
export function serverRelativeURL(gvPath: string, etag: string): string {
  return `/openapi/v3/${gvPath}?hash=${encodeURIComponent(etag)}`;
}

export interface OpenAPIDocumentsOptions {
  info?: OpenAPIInfo;
  /** The documents' Last-Modified. */
  now?: () => Date;
  /**
   * The documents of an earlier state of the served kinds (with the same `info`): a group-version whose kinds are the
   * same definitions keeps its v3 document as it was (bytes, hash, Last-Modified), so adding or removing one kind
   * rebuilds only its own group-version's document.
   */
  previous?: OpenAPIDocuments;
  /** Other servers' specs (kube-aggregator's remote APIServices), merged into v2 and listed in v3. */
  external?: ExternalOpenAPI | undefined;
}

/** One group-version's v3 document and the definitions (with their subresources) it was built from. */
interface GroupVersionDocument {
  readonly defs: readonly ResourceDefinition[];
  /** JSON of each definition's subresources, in the order of `defs`. */
  readonly subresources: readonly string[];
  readonly doc: ServedDocument;
}

const sameDefinitions = (a: GroupVersionDocument, defs: readonly ResourceDefinition[], subresources: readonly string[]): boolean =>
  a.defs.length === defs.length && a.defs.every((d, i) => d === defs[i] && a.subresources[i] === subresources[i]);

/**
 * Every OpenAPI document of one state of the served kinds, built once: each group-version's v3 document and the v3
 * index eagerly (the index carries their hashes), the v2 document on first request.
 */
export class OpenAPIDocuments {
  readonly index: ServedDocument;
  /** v3 documents by index key (`api/v1`, `apis/<group>/<version>`). */
  readonly v3: ReadonlyMap<string, ServedDocument>;
  readonly #groupVersions = new Map<string, GroupVersionDocument>();
  readonly #served: { def: ResourceDefinition; version: string; subresources: readonly SubresourceInfo[] }[];
  readonly #virtual: readonly VirtualResourceInfo[];
  readonly #info: OpenAPIInfo;
  readonly #lastModified: Date;
  readonly #external: ExternalOpenAPI | undefined;
  #v2?: ServedSwagger;

  constructor(source: DiscoverySource, options: OpenAPIDocumentsOptions = {}) {
    this.#info = options.info ?? DEFAULT_OPENAPI_INFO;
    this.#lastModified = options.now?.() ?? new Date();
    this.#external = options.external;
    const byGroupVersion = new Map<string, { version: string; defs: ResourceDefinition[] }>();
    this.#served = [];
    const subresources = new Map<ResourceDefinition, readonly SubresourceInfo[]>();
    for (const def of definitionsOf(source)) {
      // Each kind's subresources as its storages serve them (a source of definitions alone: those they declare).
      subresources.set(def, subresourcesIn(source, def));
      for (const v of def.versions) {
        if (!v.served) continue;
        const key = groupVersionPath(def.group, v.name);
        const entry = byGroupVersion.get(key) ?? { version: v.name, defs: [] };
        byGroupVersion.set(key, entry);
        entry.defs.push(def);
        this.#served.push({ def, version: v.name, subresources: subresources.get(def) ?? [] });
      }
    }
    // Virtual resources (the reviews) are fixed for a server's life: a group-version of theirs keeps its document.
    this.#virtual = virtualResourcesOf(source);
    const virtualIn = new Map<string, VirtualResourceInfo[]>();
    for (const v of this.#virtual) {
      const key = groupVersionPath(v.group, v.version);
      if (!byGroupVersion.has(key)) byGroupVersion.set(key, { version: v.version, defs: [] });
      virtualIn.set(key, [...(virtualIn.get(key) ?? []), v]);
    }
    const subresourcesOf = (def: ResourceDefinition): readonly SubresourceInfo[] => subresources.get(def) ?? [];
    const v3 = new Map<string, ServedDocument>();
    const index: OpenAPIV3Index = { paths: {} };
    // Remote group-versions' documents as their servers serve them; a group-version served here too keeps its own.
    const external = options.external?.v3Documents() ?? new Map<string, Buffer>();
    for (const key of [...new Set([...byGroupVersion.keys(), ...external.keys()])].sort()) {
      const remote = byGroupVersion.has(key) ? undefined : external.get(key);
      if (remote) {
        const doc = { json: remote, etag: openAPIETag(remote), lastModified: this.#lastModified };
        v3.set(key, doc);
        index.paths[key] = { serverRelativeURL: serverRelativeURL(key, doc.etag) };
        continue;
      }
      const { version, defs } = byGroupVersion.get(key) as { version: string; defs: ResourceDefinition[] };
      const subs = defs.map((d) => JSON.stringify(subresourcesOf(d)));
      const before = options.previous ? options.previous.#groupVersions.get(key) : undefined;
      const doc =
        before && sameDefinitions(before, defs, subs)
          ? before.doc
          : this.#toServed(groupVersionDocument(defs, version, this.#info, subresourcesOf, virtualIn.get(key) ?? []));
      this.#groupVersions.set(key, { defs, subresources: subs, doc });
      v3.set(key, doc);
      index.paths[key] = { serverRelativeURL: serverRelativeURL(key, doc.etag) };
    }
    this.v3 = v3;
    this.index = this.#toServed(index);
  }

  /** GET /openapi/v2, built on first use. */
  get v2(): ServedSwagger {
    if (!this.#v2) {
      const doc = mergeSwagger(swaggerDocument(this.#served, this.#info, this.#virtual), this.#external?.v2Specs() ?? []);
      const served = this.#toServed(doc);
      let protobuf: Buffer | undefined;
      this.#v2 = {
        ...served,
        protobuf: () => {
          protobuf ??= Buffer.from(encodeSwaggerProtobuf(doc));
          return protobuf;
        },
      };
    }
    return this.#v2;
  }

  #toServed(doc: unknown): ServedDocument {
    const json = Buffer.from(JSON.stringify(doc));
    return { json, etag: openAPIETag(json), lastModified: this.#lastModified };
  }
}
