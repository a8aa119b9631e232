/** A vertex of a {@link Graph}: an object by kind, namespace ("" when cluster-scoped) and name. */
export interface Vertex {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** A directed edge: `from` leads to `to` (kube's node graph points from an object toward the node that may read it). */
export interface Edge {
  readonly from: Vertex;
  readonly to: Vertex;
}

const keyOf = (v: Vertex): string => `${v.kind}\u0000${v.namespace}\u0000${v.name}`;

/**
 * The relationship graph of kube's Node authorizer (plugin/pkg/auth/authorizer/node/graph.go), made generic: directed
 * edges between objects, each edge owned by the object whose state declares it (a Pod owns pod→node and secret→pod).
 * Setting an owner's edges replaces the ones it declared before; removing the owner drops them; an edge declared by
 * several owners stays until the last one lets go. {@link hasPath} walks the edges from an object toward a subject.
 */
export class Graph {
  /** from → (to → how many owners declare that edge). */
  readonly #out = new Map<string, Map<string, number>>();
  /** owner → the edges it declared, as [from, to] keys. */
  readonly #owned = new Map<string, [string, string][]>();

  /** Replaces the edges `owner` declares with `edges` (none: it declares nothing now). */
  setEdges(owner: Vertex, edges: readonly Edge[]): void {
    this.removeOwner(owner);
    if (edges.length === 0) return;
    const keys: [string, string][] = edges.map((e) => [keyOf(e.from), keyOf(e.to)]);
    for (const [from, to] of keys) {
      const targets = this.#out.get(from) ?? new Map<string, number>();
      this.#out.set(from, targets);
      targets.set(to, (targets.get(to) ?? 0) + 1);
    }
    this.#owned.set(keyOf(owner), keys);
  }

  /** Drops every edge `owner` declared (the object was deleted). */
  removeOwner(owner: Vertex): void {
    const key = keyOf(owner);
    const keys = this.#owned.get(key);
    if (!keys) return;
    this.#owned.delete(key);
    for (const [from, to] of keys) {
      const targets = this.#out.get(from);
      if (!targets) continue;
      const n = (targets.get(to) ?? 0) - 1;
      if (n > 0) targets.set(to, n);
      else targets.delete(to);
      if (targets.size === 0) this.#out.delete(from);
    }
  }

  /** The owners that declared edges, as their keys; for a feed to find the owners a relist no longer has. */
  *owners(): IterableIterator<Vertex> {
    for (const key of this.#owned.keys()) {
      const [kind, namespace, name] = key.split('\u0000') as [string, string, string];
      yield { kind, namespace, name };
    }
  }

  /** Whether following edges from `from` reaches `to` (a vertex reaches itself). */
  hasPath(from: Vertex, to: Vertex): boolean {
    const target = keyOf(to);
    const start = keyOf(from);
    if (start === target) return true;
    const seen = new Set([start]);
    const stack = [start];
    while (stack.length > 0) {
      const targets = this.#out.get(stack.pop() as string);
      if (!targets) continue;
      for (const next of targets.keys()) {
        if (next === target) return true;
        if (!seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    return false;
  }

  /** How many distinct edges there are. */
  get edgeCount(): number {
    let n = 0;
    for (const targets of this.#out.values()) n += targets.size;
    return n;
  }
}
