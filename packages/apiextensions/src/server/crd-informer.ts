import { type InformerLoop, type ListWatchSource, listAndWatch } from '@kapi/registry';
import type { CustomResourceDefinition } from '../crd/types.ts';

export type CRDEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
/** `old` is the CRD as the informer held it before a MODIFIED (or a relist's ADDED of one it knew). */
export type CRDEventHandler = (type: CRDEventType, crd: CustomResourceDefinition, old?: CustomResourceDefinition) => void;

/**
 * The CRD informer the APIExtensions controllers share (kube's shared informer and lister): the CRDs as the watch cache
 * last told them, and their changes handed to every handler. A relist hands on deletions the watch may have missed.
 */
export class CRDInformer {
  readonly #crds = new Map<string, CustomResourceDefinition>();
  readonly #handlers = new Set<CRDEventHandler>();
  #synced!: () => void;
  /** Resolved once the first list was handed on. */
  readonly synced = new Promise<void>((resolve) => {
    this.#synced = resolve;
  });

  get(name: string): CustomResourceDefinition | undefined {
    return this.#crds.get(name);
  }

  list(): CustomResourceDefinition[] {
    return [...this.#crds.values()];
  }

  /** Calls `handler` on every change from now on; returns the function that unsubscribes it. */
  onEvent(handler: CRDEventHandler): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  /** Lists and watches `store` (the CRD kind's) until `loop.signal` aborts. */
  run(store: ListWatchSource, loop: InformerLoop): Promise<void> {
    return listAndWatch(store, {
      ...loop,
      onEvent: (type, obj) => {
        const crd = obj as CustomResourceDefinition;
        const name = crd.metadata.name ?? '';
        const old = this.#crds.get(name);
        if (type === 'DELETED') this.#crds.delete(name);
        else this.#crds.set(name, crd);
        this.#tell(type, crd, old);
      },
      onList: (items) => {
        const listed = new Set(items.map((o) => o.metadata.name));
        for (const [name, crd] of this.#crds)
          if (!listed.has(name)) {
            this.#crds.delete(name);
            this.#tell('DELETED', crd);
          }
        this.#synced();
      },
    });
  }

  #tell(type: CRDEventType, crd: CustomResourceDefinition, old?: CustomResourceDefinition): void {
    for (const handler of this.#handlers) handler(type, crd, old);
  }
}
