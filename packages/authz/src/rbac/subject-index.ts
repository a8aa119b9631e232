import type { UserInfo } from '@kapi/authn';
import type { RoleBinding } from './types.ts';

/** The user name a service account authenticates as (serviceaccount.MakeUsername). */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * Bindings by the subjects they name, so a user's bindings are found without looking at anyone else's:
 * User subjects and service accounts (as their user name) by user name, Group subjects by group name.
 * A ServiceAccount subject without a namespace means the binding's own (kube's appliesToUser); in a
 * ClusterRoleBinding (namespace "") it names nobody and is not indexed. Other kinds never apply.
 * Keys are the bindings' `namespace/name`; one writer (the cache), many readers.
 */
export class SubjectIndex<B extends RoleBinding> {
  readonly #byUser = new Map<string, Map<string, B>>();
  readonly #byGroup = new Map<string, Map<string, B>>();

  add(key: string, binding: B, namespace: string): void {
    for (const [map, subject] of this.#entries(binding, namespace)) {
      let bucket = map.get(subject);
      if (!bucket) {
        bucket = new Map();
        map.set(subject, bucket);
      }
      bucket.set(key, binding);
    }
  }

  /** Removes what `add(key, binding, namespace)` added. */
  remove(key: string, binding: B, namespace: string): void {
    for (const [map, subject] of this.#entries(binding, namespace)) {
      const bucket = map.get(subject);
      if (!bucket) continue;
      bucket.delete(key);
      if (bucket.size === 0) map.delete(subject);
    }
  }

  /** The bindings naming the user, each once: by user name first, then by each of its groups in order. */
  candidates(user: UserInfo): B[] {
    const out: B[] = [];
    const byName = this.#byUser.get(user.name);
    if (byName) for (const b of byName.values()) out.push(b);
    const groups = user.groups;
    for (let i = 0; i < groups.length; i++) {
      const bucket = this.#byGroup.get(groups[i] as string);
      if (!bucket) continue;
      for (const [key, b] of bucket) {
        // A binding naming the user by several subjects is in several buckets: it is given once, from the first.
        if (byName?.has(key) || this.#inEarlierGroup(groups, i, key)) continue;
        out.push(b);
      }
    }
    return out;
  }

  /** Whether an earlier group of the user (the same group listed twice included) gave `key` already. */
  #inEarlierGroup(groups: readonly string[], i: number, key: string): boolean {
    for (let j = 0; j < i; j++) if (this.#byGroup.get(groups[j] as string)?.has(key)) return true;
    return false;
  }

  /** How many subjects (user names and groups) have bindings. */
  get subjects(): number {
    return this.#byUser.size + this.#byGroup.size;
  }

  *#entries(binding: B, namespace: string): Generator<[Map<string, Map<string, B>>, string]> {
    for (const s of binding.subjects ?? []) {
      if (typeof s?.name !== 'string') continue;
      switch (s.kind) {
        case 'User':
          yield [this.#byUser, s.name];
          break;
        case 'Group':
          yield [this.#byGroup, s.name];
          break;
        case 'ServiceAccount': {
          const ns = s.namespace || namespace;
          if (ns !== '') yield [this.#byUser, serviceAccountUsername(ns, s.name)];
          break;
        }
      }
    }
  }
}
