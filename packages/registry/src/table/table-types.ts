import type { KubeObject, ListMeta, ObjectMeta } from '@kapi/apimachinery';

/** meta.k8s.io/v1 Table and its parts, as kube-apiserver serves `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. */

/** metav1.TableColumnDefinition: every field is always serialized. */
export interface TableColumnDefinition {
  /** "Name", "Age" or a printer column's name; kubectl upper-cases it. */
  name: string;
  /** OpenAPI type: integer, number, string, boolean, date. */
  type: string;
  /** "name" marks the column that identifies the object; usually "". */
  format: string;
  description: string;
  /** 0 shows by default; higher only with `kubectl get -o wide`. */
  priority: number;
}

/** A cell: what the column's path found, typed per column; null prints as <none>. */
export type TableCell = string | number | boolean | null;

/** metav1.PartialObjectMetadata: the whole ObjectMeta of a row's object. */
export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: 'meta.k8s.io/v1';
  metadata: ObjectMeta;
}

export interface TableRow {
  cells: TableCell[];
  /** The object per includeObject; null with None (Go serializes the empty RawExtension as null). */
  object: PartialObjectMetadata | KubeObject | null;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  /** resourceVersion, continue and remainingItemCount of the list (or the object's resourceVersion). */
  metadata: ListMeta;
  /** null when headers are left out (noHeaders: watch events after the first). */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

/** metav1.IncludeObjectPolicy; kube-apiserver treats an empty value as Metadata. */
export type IncludeObjectPolicy = 'None' | 'Metadata' | 'Object';
