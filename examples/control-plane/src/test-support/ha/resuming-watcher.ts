import type { IncomingMessage } from 'node:http';
import { type HAClient, readAll, sleep } from './ha-client.ts';

/**
 * Dev-only: a watcher of one namespace's ConfigMaps that behaves as client-go's reflector: it lists, watches from the
 * list's resourceVersion with bookmarks, and after any disconnect watches again from the last resourceVersion it saw
 * (an event's or a bookmark's), on the next server when its own is gone; a 410 Expired makes it list again (counted).
 * It records everything it sees, for `checkWatcher`.
 */

export interface SeenEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly name: string;
  readonly rv: bigint;
  /** The object's data.seq (which write of the object it shows). */
  readonly seq: string | undefined;
}

/** A list the watcher made after a 410: the changes in (fromRV, toRV] reach it through `items` instead of events. */
export interface Relist {
  readonly fromRV: bigint;
  readonly toRV: bigint;
  /** name → resourceVersion of each object the list held. */
  readonly items: ReadonlyMap<string, bigint>;
}

export class ResumingWatcher {
  readonly events: SeenEvent[] = [];
  readonly relists: Relist[] = [];
  /** The first list's resourceVersion: every change after it must come as an event or a relist. */
  startRV = 0n;
  /** The last resourceVersion seen (event, bookmark or list); where the next watch starts. */
  lastRV = 0n;
  /** Watches that ended (stream closed, connection lost, non-410 ERROR) and were started again from lastRV. */
  resumes = 0;
  /** 410 Expired answers (each followed by a relist). */
  expired = 0;
  /** Events whose resourceVersion was not above the last one seen (must stay 0). */
  outOfOrder = 0;
  /** Non-410 ERROR events and error answers to the watch request, by code. */
  readonly errors = new Map<string, number>();
  private stopped = false;
  private current: IncomingMessage | undefined;
  private loop: Promise<void> | undefined;
  private waiters: { rv: bigint; resolve: () => void }[] = [];

  readonly client: HAClient;
  private readonly namespace: string;

  constructor(client: HAClient, namespace: string) {
    this.client = client;
    this.namespace = namespace;
  }

  private get base(): string {
    return `/api/v1/namespaces/${this.namespace}/configmaps`;
  }

  /** Lists and starts watching; resolves once the first list is done. */
  async start(): Promise<void> {
    const list = await this.list();
    this.startRV = list.rv;
    this.advance(list.rv);
    this.loop = this.run();
  }

  /** Resolves true once the watcher has seen `rv` (or later), false after `timeoutMs`. */
  waitFor(rv: bigint, timeoutMs: number): Promise<boolean> {
    if (this.lastRV >= rv) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.waiters.push({
        rv,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      });
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.destroy();
    await this.loop;
  }

  private advance(rv: bigint): void {
    if (rv > this.lastRV) this.lastRV = rv;
    this.notify();
  }

  private notify(): void {
    this.waiters = this.waiters.filter((w) => {
      if (w.rv > this.lastRV) return true;
      w.resolve();
      return false;
    });
  }

  private count(code: string): void {
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
  }

  private async list(): Promise<{ rv: bigint; items: Map<string, bigint> }> {
    const res = await this.client.request('GET', this.base);
    if (res.status !== 200) throw new Error(`LIST ${this.base}: ${res.status} ${JSON.stringify(res.body)}`);
    const items = new Map<string, bigint>();
    for (const item of res.body.items) items.set(item.metadata.name, BigInt(item.metadata.resourceVersion));
    return { rv: BigInt(res.body.metadata.resourceVersion), items };
  }

  private async relist(): Promise<void> {
    const fromRV = this.lastRV;
    const { rv, items } = await this.list();
    this.relists.push({ fromRV, toRV: rv, items });
    // A list may answer below lastRV on another server's cache; the watch still starts from the list's own RV.
    this.lastRV = rv;
    this.notify();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let res: IncomingMessage;
      try {
        res = await this.client.open('GET', `${this.base}?watch=1&allowWatchBookmarks=true&resourceVersion=${this.lastRV}`, undefined, 0);
      } catch (err) {
        if (this.stopped) return;
        this.client.countRetry('connection', (err as Error).message);
        this.client.failover();
        await sleep(50);
        continue;
      }
      this.current = res;
      if (res.statusCode !== 200) {
        const text = await readAll(res).catch(() => '');
        if (res.statusCode === 410) {
          this.expired++;
          await this.relist();
        } else {
          this.count(`${res.statusCode}`);
          this.client.countRetry(String(res.statusCode), text);
          await sleep(100);
        }
        if (!text && res.statusCode !== 410) this.count('empty');
        continue;
      }
      const outcome = await this.consume(res);
      if (this.stopped) return;
      if (outcome === 'expired') {
        this.expired++;
        await this.relist().catch(() => this.count('relist-failed'));
      } else {
        this.resumes++;
      }
    }
  }

  /** Reads one watch stream to its end. */
  private consume(res: IncomingMessage): Promise<'ended' | 'expired'> {
    return new Promise((resolve) => {
      let buf = '';
      let outcome: 'ended' | 'expired' = 'ended';
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        resolve(outcome);
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (!line || done) continue;
          const ev = JSON.parse(line) as {
            type: string;
            object: { code?: number; metadata?: { name: string; resourceVersion: string }; data?: { seq?: string } };
          };
          if (ev.type === 'ERROR') {
            if (ev.object.code === 410) outcome = 'expired';
            else this.count(`ERROR ${ev.object.code}`);
            res.destroy();
            finish();
            return;
          }
          const rv = BigInt(ev.object.metadata?.resourceVersion ?? '0');
          if (ev.type === 'BOOKMARK') {
            this.advance(rv);
            continue;
          }
          if (rv <= this.lastRV) this.outOfOrder++;
          this.events.push({ type: ev.type as SeenEvent['type'], name: ev.object.metadata?.name ?? '', rv, seq: ev.object.data?.seq });
          this.advance(rv);
        }
      });
      res.once('end', finish);
      res.once('close', finish);
      res.once('error', finish);
    });
  }
}
