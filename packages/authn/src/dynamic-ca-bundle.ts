import type { X509Certificate } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { CABundle } from './ca-bundle.ts';
import { parseCABundle } from './ca-bundle.ts';

export interface DynamicCABundleOptions {
  /**
   * How often the file is read again whatever the file watcher said (kube's DynamicFileCAContent re-checks every
   * minute: a watch misses an atomic replace or a change on some filesystems). Default 60 000 ms.
   */
  checkIntervalMs?: number;
  /** Called when a changed file could not be used (the previous bundle stays in force, as in kube). */
  onError?: (err: Error) => void;
}

/**
 * kube's DynamicFileCAContent: a CA bundle read from a PEM file and read again when the file changes (fs.watch,
 * plus a periodic check), so `--client-ca-file` can be rotated without a restart. A file that becomes unreadable,
 * empty or invalid keeps the last good bundle and reports the error; identical content changes nothing.
 *
 * @example
 * const ca = await DynamicCABundle.fromFile('/etc/kapi/client-ca.crt');
 * const x509 = new X509Authenticator({ ca });
 * // … ca.close() at shutdown
 */
export class DynamicCABundle implements CABundle {
  readonly path: string;
  readonly #onError: (err: Error) => void;
  readonly #listeners = new Set<() => void>();
  #text: string;
  #certs: X509Certificate[];
  #pem: string;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #reloading: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(path: string, text: string, certs: X509Certificate[], options: DynamicCABundleOptions) {
    this.path = path;
    this.#text = text;
    this.#certs = certs;
    this.#pem = pemOf(certs);
    this.#onError = options.onError ?? (() => {});
    this.#timer = setInterval(() => void this.reload(), options.checkIntervalMs ?? 60_000);
    this.#timer.unref();
    this.#watch();
  }

  /** Reads `path` (an error if it holds no valid certificate) and starts watching it. */
  static async fromFile(path: string, options: DynamicCABundleOptions = {}): Promise<DynamicCABundle> {
    const text = await readFile(path, 'utf8');
    return new DynamicCABundle(path, text, parseCABundle(text, path), options);
  }

  certificates(): readonly X509Certificate[] {
    return this.#certs;
  }

  pem(): string {
    return this.#pem;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads the file again now; true when the bundle changed. Reads run one after another, each after its call. */
  reload(): Promise<boolean> {
    const load = this.#reloading.then(() => this.#load());
    this.#reloading = load.catch(() => false);
    return load;
  }

  /** Stops watching the file. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  async #load(): Promise<boolean> {
    if (this.#closed) return false;
    if (!this.#watcher) this.#watch();
    let text: string;
    let certs: X509Certificate[];
    try {
      text = await readFile(this.path, 'utf8');
      if (text === this.#text) return false;
      certs = parseCABundle(text, this.path);
    } catch (err) {
      this.#onError(err as Error);
      return false;
    }
    this.#text = text;
    this.#certs = certs;
    this.#pem = pemOf(certs);
    for (const listener of this.#listeners) listener();
    return true;
  }

  /** Watches the file; after a rename (an atomic replace) the watch is set up again on the new file. */
  #watch(): void {
    if (this.#closed) return;
    try {
      this.#watcher = watch(this.path, { persistent: false }, (event) => {
        void this.reload();
        if (event === 'rename') {
          this.#watcher?.close();
          this.#watcher = undefined;
          // The new file may not be there yet; the periodic check covers the gap.
          setTimeout(() => this.#watch(), 100).unref();
        }
      });
      this.#watcher.on('error', () => {
        this.#watcher?.close();
        this.#watcher = undefined;
      });
    } catch {
      // No file to watch right now: the periodic check keeps looking.
    }
  }
}

function pemOf(certs: readonly X509Certificate[]): string {
  return certs.map((c) => c.toString()).join('');
}
