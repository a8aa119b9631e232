import { MemoryStorage, type Storage } from '@kapi/storage';
import type { ResourceDefinition } from '../resource-definition.ts';
import { StoreKeys } from '../store/store-keys.ts';
import type { backends } from './backends.ts';

/**
 * Dev-only (excluded from the build): the storages of one test's Stores over a `backends` entry — one MemoryStorage
 * shared by all, each Store given the backend directly or a Cacher of its own in front of it — closed together.
 */
export class BackendStorages {
  readonly #memory = new MemoryStorage({ compaction: false });
  readonly #closers: (() => Promise<void>)[] = [];
  readonly #wrap: (typeof backends)[number][1];

  constructor(wrap: (typeof backends)[number][1]) {
    this.#wrap = wrap;
  }

  /** The storage a Store of `def` is given. */
  async for(def: ResourceDefinition): Promise<Storage> {
    const backend = await this.#wrap(this.#memory, new StoreKeys(def).resourcePrefix);
    this.#closers.push(backend.close);
    return backend.storage;
  }

  async close(): Promise<void> {
    for (const close of this.#closers.splice(0)) await close();
    await this.#memory.close();
  }
}
