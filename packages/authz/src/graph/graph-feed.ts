import type { KubeObject } from '@kapi/apimachinery';
import type { Edge, Graph, Vertex } from './graph.ts';

export type GraphEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * Keeps a {@link Graph} up to date with the objects of one kind, as kube's graph_populator does from its informers:
 * each object owns the edges `edgesOf` reads from it. Fits registry's `listAndWatch`:
 * `onEvent: (type, obj) => feed.apply(type, obj)`, `onList: (items) => feed.listed(items)`.
 *
 * @example
 * const feed = new GraphFeed(graph, 'Gizmo', (g) => (g.spec?.nodeName ? [{ from: vertexOf('Gizmo', g), to: { kind: 'Node', namespace: '', name: g.spec.nodeName } }] : []));
 */
export class GraphFeed<T extends KubeObject = KubeObject> {
  readonly #graph: Graph;
  readonly #kind: string;
  readonly #edgesOf: (obj: T) => readonly Edge[];

  /** `kind` names this kind's vertices (the owners of the edges); `edgesOf` gives the edges an object declares. */
  constructor(graph: Graph, kind: string, edgesOf: (obj: T) => readonly Edge[]) {
    this.#graph = graph;
    this.#kind = kind;
    this.#edgesOf = edgesOf;
  }

  /** ADDED and MODIFIED set the object's edges (a rebound object loses its old ones), DELETED drops them. */
  apply(type: GraphEventType, obj: KubeObject): void {
    const owner = vertexOf(this.#kind, obj);
    if (!owner) return;
    if (type === 'DELETED') this.#graph.removeOwner(owner);
    else this.#graph.setEdges(owner, this.#edgesOf(obj as T));
  }

  /** After a (re)list: objects of this kind that are not among `items` were deleted while no watch was open. */
  listed(items: readonly KubeObject[]): void {
    const present = new Set(items.map((o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`));
    for (const owner of [...this.#graph.owners()]) {
      if (owner.kind === this.#kind && !present.has(`${owner.namespace}/${owner.name}`)) this.#graph.removeOwner(owner);
    }
  }
}

/** The vertex of an object: `kind`, its namespace ("" when cluster-scoped) and name; undefined without a name. */
export function vertexOf(kind: string, obj: KubeObject): Vertex | undefined {
  const name = obj?.metadata?.name;
  if (typeof name !== 'string' || name === '') return undefined;
  return { kind, namespace: obj.metadata?.namespace ?? '', name };
}
