import type { Clock, KubeObject, ListMeta, ObjectList } from '@kapi/apimachinery';
import type { PrinterColumn, ResourceDefinition, ResourceVersion } from '../resource-definition.ts';
import { columnCell } from './cell.ts';
import { type ColumnPath, ColumnPathError, compileColumnPath } from './column-path.ts';
import type { IncludeObjectPolicy, Table, TableCell, TableColumnDefinition, TableRow } from './table-types.ts';

/**
 * Table conversion as kube-apiserver does it for custom resources (apiextensions' tableconvertor), which kapi
 * applies to every kind: a Name column, then the kind's printer columns — or, when it declares none, an Age
 * column on .metadata.creationTimestamp. Age is not added beside declared columns (kube does not either):
 * declare it, e.g. with AGE_COLUMN, where it should show. Built-in kinds' DefaultTableConvertor ("Name",
 * "Created At") is not used.
 */

/** ObjectMeta's field docs, which kube-apiserver uses as the default columns' descriptions. */
export const OBJECT_META_NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
export const OBJECT_META_CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** The Age column kube-apiserver serves for a custom resource without printer columns. */
export const AGE_COLUMN: PrinterColumn = Object.freeze({
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: OBJECT_META_CREATION_TIMESTAMP_DESCRIPTION,
});

/** Go's zero time, which kube's DefaultTableConvertor prints for an object without a creationTimestamp. */
const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/**
 * kube's DefaultTableConvertor column beside Name, which built-in kinds without printers (RBAC, the CRD kind)
 * serve: the creation time itself as Go's time.RFC3339 in UTC (whole seconds), not an age.
 */
export const CREATED_AT_COLUMN: PrinterColumn = Object.freeze({
  name: 'Created At',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: OBJECT_META_CREATION_TIMESTAMP_DESCRIPTION,
  value: (o: KubeObject) => {
    const ms = Date.parse(o.metadata.creationTimestamp ?? '');
    return Number.isNaN(ms) ? GO_ZERO_TIME : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  },
});

const NAME_COLUMN: TableColumnDefinition = Object.freeze({
  name: 'Name',
  type: 'string',
  format: 'name',
  description: OBJECT_META_NAME_DESCRIPTION,
  priority: 0,
});

export interface TableOptions {
  /** What each row's `object` holds; default Metadata (a PartialObjectMetadata), as for an empty includeObject. */
  includeObject?: IncludeObjectPolicy;
  /** Leave out columnDefinitions (null): kube-apiserver does so for every watch event after the first. */
  noHeaders?: boolean;
  /** Where `date` columns measure ages from; default the real clock. */
  clock?: Pick<Clock, 'now'>;
  /**
   * The object a row carries under includeObject=Object, from the one its cells are read from: e.g. the stored
   * object converted to the request's version (printer columns name the storage version's fields). Default: itself.
   */
  rowObject?: (obj: KubeObject) => KubeObject;
  /** The request's version: its own printer columns, when it has them, instead of the definition's (see versionColumns). */
  version?: string;
}

/** The compiled table of one kind: columns once, rows per request. */
export interface TableConvertor {
  readonly columnDefinitions: readonly TableColumnDefinition[];
  /** A Table of one object (one row) or of a list (a row per item, list metadata copied). */
  convert(input: KubeObject | ObjectList, options?: TableOptions): Table;
}

function isList(input: KubeObject | ObjectList): input is ObjectList {
  return Array.isArray((input as { items?: unknown }).items);
}

function tableMeta(input: KubeObject | ObjectList): ListMeta {
  const meta: ListMeta = {};
  const src = input.metadata ?? {};
  // Empty strings are left out, as Go's omitempty does; remainingItemCount is a pointer and kept even at 0.
  if (src.resourceVersion) meta.resourceVersion = src.resourceVersion;
  if (isList(input)) {
    const list = input.metadata ?? {};
    if (list.continue) meta.continue = list.continue;
    if (list.remainingItemCount !== undefined && list.remainingItemCount !== null) meta.remainingItemCount = list.remainingItemCount;
  }
  return meta;
}

function rowObject(obj: KubeObject, policy: IncludeObjectPolicy): TableRow['object'] {
  if (policy === 'None') return null;
  if (policy === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

/** Compiles the columns of a kind; throws ColumnPathError when a printer column's jsonPath cannot be read. */
export function tableConvertor(printerColumns: readonly PrinterColumn[], nameColumn = true): TableConvertor {
  const columns = printerColumns.length > 0 ? printerColumns : [AGE_COLUMN];
  const paths: ColumnPath[] = columns.map((c) => compileColumnPath(c.jsonPath));
  const columnDefinitions = Object.freeze([
    ...(nameColumn ? [NAME_COLUMN] : []),
    ...columns.map((c) =>
      Object.freeze({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        priority: c.priority ?? 0,
      }),
    ),
  ]);

  const cellsOf = (obj: KubeObject, nowMs: number): TableRow['cells'] => [
    ...(nameColumn ? [obj.metadata?.name ?? ''] : []),
    ...columns.map((c, i) => {
      if (c.value) {
        const v = c.value(obj, nowMs);
        // Computed cells are the printer's own (kube's built-in printers): kept as they are, e.g. a `date` cell
        // holding a timestamp rather than an age (DefaultTableConvertor's "Created At").
        return v === undefined || v === null ? null : (v as TableCell);
      }
      let found: unknown[];
      try {
        found = (paths[i] as ColumnPath).findAll(obj);
      } catch (err) {
        // A path that fails on this object (an index out of range, a filter on a non-list) gives an empty cell.
        if (err instanceof ColumnPathError) return null;
        throw err;
      }
      return found.length === 0 ? null : columnCell(c.type, found[0], nowMs);
    }),
  ];

  return Object.freeze({
    columnDefinitions,
    convert(input: KubeObject | ObjectList, options: TableOptions = {}): Table {
      const nowMs = (options.clock ?? Date).now();
      const policy = options.includeObject ?? 'Metadata';
      const objects = isList(input) ? input.items : [input];
      return {
        kind: 'Table',
        apiVersion: 'meta.k8s.io/v1',
        metadata: tableMeta(input),
        columnDefinitions: options.noHeaders ? null : columnDefinitions.map((c) => ({ ...c })),
        rows: objects.map((obj) => ({
          cells: cellsOf(obj, nowMs),
          object: rowObject(policy === 'Object' && options.rowObject ? options.rowObject(obj) : obj, policy),
        })),
      };
    },
  });
}

/** What a Table is built from: the definition's columns, and a version's own ones (ResourceVersion.printerColumns). */
export type TableSubject = Pick<ResourceDefinition, 'printerColumns'> & {
  readonly nameColumn?: boolean;
  version?(name: string): Pick<ResourceVersion, 'printerColumns'> | undefined;
};

const convertors = new WeakMap<object, TableConvertor>();

/**
 * The columns of version `version` when it has its own (then a Table in that version reads them on objects in that
 * version, as kube's per-version table convertor does), else undefined: the definition's, on stored objects.
 */
export function versionColumns(def: TableSubject, version: string | undefined): readonly PrinterColumn[] | undefined {
  return version === undefined ? undefined : def.version?.(version)?.printerColumns;
}

/**
 * A definition's table convertor, compiled on first use; with `version`, that version's when it has columns of its
 * own (see versionColumns).
 */
export function tableConvertorFor(def: TableSubject, version?: string): TableConvertor {
  const own = version === undefined ? undefined : def.version?.(version);
  const key: object = own?.printerColumns ? own : def;
  let c = convertors.get(key);
  if (!c) {
    c = tableConvertor(own?.printerColumns ?? def.printerColumns, def.nameColumn ?? true);
    convertors.set(key, c);
  }
  return c;
}

/**
 * `as=Table;v=v1;g=meta.k8s.io`: the Table kube-apiserver serves for one object or a list of a kind. With
 * `options.version` whose columns are its own, `input` must be in that version.
 */
export function toTable(def: TableSubject, input: KubeObject | ObjectList, options?: TableOptions): Table {
  return tableConvertorFor(def, options?.version).convert(input, options);
}
