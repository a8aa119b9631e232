/** field.Path as kube prints it: `.name` for a child, `[key]` for a map key, `[i]` for an index. */
export function child(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}

export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}
