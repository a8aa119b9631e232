import { comparePathElements, type PathElement, pathElementString } from './path-element.ts';

/** A field path from the object's root: SMD's fieldpath.Path. */
export type Path = readonly PathElement[];

/** Path.String, as kube prints a field in conflict messages: `.spec.ports[port=80,protocol="TCP"].name`, `.spec.finalizers[="a"]`. */
export function pathString(path: Path): string {
  let out = '';
  for (const pe of path) out += pathElementString(pe);
  return out;
}

/** Path.Compare: element by element, a prefix before the longer path. */
export function comparePaths(a: Path, b: Path): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = comparePathElements(a[i] as PathElement, b[i] as PathElement);
    if (c !== 0) return c;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Path.Equals. */
export const pathsEqual = (a: Path, b: Path): boolean => a.length === b.length && comparePaths(a, b) === 0;

/**
 * MakePath's shorthand for tests and static paths: a string is a field name, a number an index, a PathElement
 * itself (use keyElement / valueElement for list items).
 */
export function makePath(...parts: readonly (string | number | PathElement)[]): Path {
  return parts.map((p) => (typeof p === 'string' ? { fieldName: p } : typeof p === 'number' ? { index: p } : p));
}
