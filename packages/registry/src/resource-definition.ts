import type { Agent } from 'node:http';
import type { GroupKind, GroupResource, GroupVersionKind, KubeObject, ObjectMeta } from '@kapi/apimachinery';
import type { z } from 'zod';
import type { ObjectConversion } from './object-conversion.ts';
import type { Strategy } from './strategy.ts';
import type { NameValidator } from './validate-object-meta.ts';
import type { VersionSchema } from './version-schema.ts';

/**
 * A resource definition: what kube-apiserver knows of a kind from its CustomResourceDefinition (or its
 * built-in registration). `defineResource` builds and checks one; the Scheme and (later) the Store read it.
 */

/**
 * The zod schema of one version: an object schema for the fields beside apiVersion, kind and metadata (spec,
 * status, or top-level fields such as a ConfigMap's data). kapi owns those three: TypeMeta is checked by
 * decoding, ObjectMeta by Kubernetes' own rules (validateObjectMeta), so every kind validates them alike.
 */
export type ObjectSchema = z.ZodObject<z.ZodRawShape, z.core.$ZodObjectConfig>;

/** The object type of a version: apiVersion, kind and ObjectMeta plus what the schema gives. */
export type ResourceObject<S extends ObjectSchema> = { apiVersion: string; kind: string; metadata: ObjectMeta } & z.output<S>;

/** Converts an object of one version to the hub (the storage version) or back; gets a copy it may change. */
export type Converter = (obj: KubeObject) => KubeObject;

/** One version as a definition declares it. */
export interface VersionInput<S extends ObjectSchema = ObjectSchema> {
  /** "v1", "v1beta2", … (a DNS-1035 label). */
  name: string;
  /** Default true. */
  served?: boolean;
  /** Exactly one version is the storage version; with a single version it may be left out. */
  storage?: boolean;
  /** Defaults to the definition's top-level `schema`. */
  schema?: S;
  deprecated?: boolean;
  deprecationWarning?: string;
  /** This version → the storage version. Without converters a version has the storage version's shape. */
  toHub?: Converter;
  /** The storage version → this version. */
  fromHub?: Converter;
  /**
   * This version's own `kubectl get` columns, read on the object in this version (kube's per-version
   * additionalPrinterColumns); an empty list gives the Age column. Default: the definition's `printerColumns`.
   */
  printerColumns?: readonly PrinterColumn[];
  /** This version's own selectable fields, read on the object in this version. Default: the definition's. */
  selectableFields?: readonly SelectableField[];
}

/** One version as a definition holds it. */
export interface ResourceVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  /** The version's schema (a zod one for defineResource: zodVersionSchema). */
  readonly schema: VersionSchema;
  readonly deprecated: boolean;
  readonly deprecationWarning?: string;
  readonly toHub?: Converter;
  readonly fromHub?: Converter;
  /**
   * The version's own printer columns, as kube serves a CRD version's additionalPrinterColumns: a Table requested in
   * this version uses them, evaluated on the object converted to this version. Absent: the definition's, evaluated on
   * the stored (storage version) object.
   */
  readonly printerColumns?: readonly PrinterColumn[];
  /**
   * The version's own selectable fields: a field selector of a list or watch in this version names these, read on the
   * object converted to this version (kube's per-version selectableFields). Absent: the definition's. A kind with an
   * asynchronous `conversion` reads them on the stored object instead: the storage filters synchronously.
   */
  readonly selectableFields?: readonly SelectableField[];
}

/** autoscaling/v1 Scale mapped onto the object, with simple JSONPaths (`.spec.replicas`). */
export interface ScaleSubresource {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

/**
 * kube's proxy subresource (pods/proxy, services/proxy, nodes/proxy): a request for `<object>/proxy` or
 * `<object>/proxy/<path>` — any method, upgrades included — is forwarded to an address the object gives, through
 * server-core's upgrade-aware proxy.
 */
export interface ProxySubresource {
  /**
   * Where requests for the object go: its scheme, host, port and base path (the request's subpath is joined to it),
   * with the agent to dial it (TLS settings). `port` and `scheme` are what the name said in kube's
   * `[scheme:]name[:port]` form (`pods/https:web:8443/proxy`), empty when it did not. Throw a StatusError to refuse
   * (e.g. 503 when the object has no address yet).
   */
  location(obj: KubeObject, target: { scheme: string; port: string }): ProxySubresourceLocation | Promise<ProxySubresourceLocation>;
  /** What discovery names as the subresource's kind (kube's PodProxyOptions); default the parent's kind. */
  readonly kind?: GroupVersionKind;
}

/** An address a proxy subresource forwards to. */
export interface ProxySubresourceLocation {
  readonly url: string | URL;
  readonly agent?: Agent;
}

export interface SubresourcesInput {
  status?: true;
  scale?: ScaleSubresource;
  proxy?: ProxySubresource;
}

export interface Subresources {
  readonly status: boolean;
  readonly scale?: ScaleSubresource;
  readonly proxy?: ProxySubresource;
}

/** A column of `kubectl get` (additionalPrinterColumns). */
export interface PrinterColumn {
  readonly name: string;
  readonly type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description?: string;
  /** 0 shows in the default view, higher only with `-o wide`. */
  readonly priority?: number;
  readonly format?: 'int32' | 'int64' | 'float' | 'double' | 'byte' | 'date' | 'date-time' | 'password' | 'name';
  /**
   * Computes the cell instead of reading `jsonPath` (which then only documents the column): for columns kube's
   * built-in printers compute, such as a ConfigMap's number of keys. The value is the cell as it is (a `date`
   * column's value is not turned into an age); undefined gives an empty cell.
   */
  readonly value?: (obj: KubeObject, nowMs: number) => string | number | boolean | null | undefined;
}

/** A field that field selectors may name, beside metadata.name and metadata.namespace. */
export interface SelectableField {
  readonly jsonPath: string;
}

/** What `defineResource` takes. */
export interface ResourceInput<V extends readonly VersionInput[], S extends ObjectSchema | undefined, T extends KubeObject> {
  /** API group, "" for the core group. */
  group: string;
  versions: V;
  /** The schema of every version that has none of its own. */
  schema?: S;
  /** UpperCamelCase, e.g. "Widget". */
  kind: string;
  /** Lowercase, e.g. "widgets": the URL segment. */
  plural: string;
  /** Defaults to the lowercased kind. */
  singular?: string;
  shortNames?: readonly string[];
  /** Groupings such as "all" for `kubectl get all`. */
  categories?: readonly string[];
  namespaced: boolean;
  /** Hooks replacing the defaults one by one (defaultStrategy). */
  strategy?: Partial<Strategy<T>>;
  subresources?: SubresourcesInput;
  printerColumns?: readonly PrinterColumn[];
  /** false leaves out the leading Name column of tables (kube's Event table has none). Default true. */
  nameColumn?: boolean;
  selectableFields?: readonly SelectableField[];
  /**
   * The rule for metadata.name and generateName instead of a DNS-1123 subdomain: kube's ValidateObjectMeta takes one
   * per kind (RBAC kinds take path segment names, e.g. `system:basic-user`).
   */
  validateName?: NameValidator;
  /**
   * false: the kind is served as kube serves custom resources, decoded into maps rather than Go structs — so its
   * patches may not be strategic merge patches (415: its schemas carry no patch strategies), and the duplicate-key check
   * of a body walks metadata.managedFields' fieldsV1 too (a struct kind keeps fieldsV1 as raw bytes). Default true.
   */
  strategicMergePatch?: boolean;
  /** Converts between versions instead of the versions' toHub/fromHub, asynchronously and a list at a time (a CRD's webhook). */
  conversion?: ObjectConversion;
  /** Keep the objects in another kind's storage (see StoredWith). */
  storedWith?: StoredWith;
}

/**
 * kube's cohabitating resources: a kind whose objects live in another kind's storage, in that kind's form, so both
 * serve the same objects (events.k8s.io events are core events). Its Store reads and writes the other kind's keys,
 * converting each object on the way: what a watch cache over those keys holds is the other kind's form.
 */
export interface StoredWith {
  /** The group ('' for core) and plural whose storage keys hold the objects. */
  readonly group: string;
  readonly plural: string;
  /** This kind's storage version object (metadata included) as the other kind stores it; returns a new object. */
  toStored(obj: KubeObject): KubeObject;
  /** The other kind's stored object in this kind's storage version; returns a new object, never changes its input. */
  fromStored(obj: KubeObject): KubeObject;
}

/** A checked, frozen definition of one kind; `T` is the storage version's object type. */
export interface ResourceDefinition<T extends KubeObject = KubeObject> {
  readonly group: string;
  readonly kind: string;
  /** `${kind}List`. */
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly namespaced: boolean;
  readonly versions: readonly ResourceVersion[];
  /** The storage version, also the hub of conversion. */
  readonly storageVersion: ResourceVersion;
  readonly strategy: Strategy<T>;
  /** One set for every version (kube allows them per version; kapi serves the same subresources in each). */
  readonly subresources: Subresources;
  /** The columns of every version without its own (ResourceVersion.printerColumns). */
  readonly printerColumns: readonly PrinterColumn[];
  readonly nameColumn: boolean;
  /** The selectable fields of every version without its own (ResourceVersion.selectableFields). */
  readonly selectableFields: readonly SelectableField[];
  readonly groupKind: GroupKind;
  readonly groupResource: GroupResource;
  /** The kind's name rule, when it is not a DNS-1123 subdomain. */
  readonly validateName?: NameValidator;
  /** false for a kind served as custom resources are (see ResourceInput): no strategic merge patch, fieldsV1 checked. */
  readonly strategicMergePatch?: boolean;
  /** When set, every conversion between versions goes through it (see ObjectConversion); else toHub/fromHub, synchronously. */
  readonly conversion?: ObjectConversion;
  /** Set when the objects live in another kind's storage (see StoredWith). */
  readonly storedWith?: StoredWith;
  /** The version named `name`, if the kind has it. */
  version(name: string): ResourceVersion | undefined;
}

/** The object type of a definition: `ObjectOf<typeof Widget>`. */
export type ObjectOf<D> = D extends ResourceDefinition<infer T> ? T : never;

type SchemaOfVersion<E> = E extends { schema: infer X extends ObjectSchema } ? X : undefined;
type StorageEntry<V extends readonly VersionInput[]> = V extends readonly [infer Only] ? Only : Extract<V[number], { storage: true }>;

type Fallback<S> = S extends ObjectSchema ? S : ObjectSchema;
type Resolved<X, S> = [X] extends [never] ? Fallback<S> : X extends ObjectSchema ? X : Fallback<S>;

/** The storage version's schema: its own, or the top-level one. */
export type StorageSchemaOf<V extends readonly VersionInput[], S extends ObjectSchema | undefined> = Resolved<
  SchemaOfVersion<StorageEntry<V>>,
  S
>;
