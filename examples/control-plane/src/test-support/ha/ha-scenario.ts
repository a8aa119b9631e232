import { type AckedWrite, runWriter } from './config-map-writer.ts';
import { checkFinalList, checkWatcher, type FinalState, type ListFigures, type WatchFigures } from './ha-check.ts';
import { HAClient, sleep } from './ha-client.ts';
import type { KapiProcesses } from './kapi-processes.ts';
import { ResumingWatcher } from './resuming-watcher.ts';

/**
 * Dev-only: one HA run. A watcher per kapi process (failing over to the next when its own dies), writers spread over
 * the processes, faults injected on a timeline while the load runs; then every watcher must catch up with the last
 * acknowledged write, and a final consistent LIST is compared with what was acknowledged.
 */

export interface Fault {
  /** Milliseconds after the load started. */
  readonly atMs: number;
  readonly what: string;
  run(): Promise<void>;
}

export interface ScenarioOptions {
  readonly kapi: KapiProcesses;
  readonly namespace: string;
  readonly writers: number;
  readonly namesPerWriter: number;
  readonly pauseMs: number;
  readonly loadMs: number;
  readonly faults: readonly Fault[];
  /** How long watchers may take to reach the last acknowledged write after the load stops. */
  readonly catchUpMs: number;
}

interface KubeItem {
  metadata: { name: string; resourceVersion: string };
}

export interface FaultFigures {
  readonly what: string;
  /** When it was injected, ms after the load started. */
  readonly atMs: number;
  /** From the fault until every writer had a write acknowledged that it started after the fault. */
  readonly recoveredMs: number | undefined;
}

export interface ScenarioResult {
  readonly acked: readonly AckedWrite[];
  /** Acknowledged writes by the server that answered them. */
  readonly ackedByServer: ReadonlyMap<string, number>;
  /** Retries the writers' clients made, by cause. */
  readonly writeRetries: ReadonlyMap<string, number>;
  /** Retries the watchers' clients made (reconnects and error answers), by cause. */
  readonly watchRetries: ReadonlyMap<string, number>;
  /** The slowest acknowledged write, retries included (ms). */
  readonly slowestWriteMs: number;
  readonly faults: readonly FaultFigures[];
  readonly list: ListFigures;
  readonly watchers: readonly WatchFigures[];
  /** Watchers that reached the last acknowledged write within catchUpMs. */
  readonly caughtUp: number;
  /** Objects a live process's watch cache holds at another resourceVersion than the final consistent list. */
  readonly cacheMismatches: readonly string[];
  /** When the load started (ms since the epoch). */
  readonly startedAt: number;
  /** A few of the messages that made clients retry. */
  readonly retrySamples: readonly string[];
}

function merge(into: Map<string, number>, from: ReadonlyMap<string, number>): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

export async function runScenario(o: ScenarioOptions): Promise<ScenarioResult> {
  const urls = o.kapi.processes.map((p) => p.url);
  const watchers = urls.map((_, i) => new ResumingWatcher(new HAClient(urls, o.kapi.token, o.kapi.ca, i), o.namespace));
  const writerClients = Array.from({ length: o.writers }, (_, i) => new HAClient(urls, o.kapi.token, o.kapi.ca, i));
  try {
    await Promise.all(watchers.map((w) => w.start()));
    const acked: AckedWrite[] = [];
    let stopped = false;
    const t0 = Date.now();
    const writers = writerClients.map((client, i) =>
      runWriter({
        client,
        namespace: o.namespace,
        writer: i,
        namePrefix: `ha-w${i}-`,
        objects: o.namesPerWriter,
        createEvery: 5,
        deleteEvery: 7,
        pauseMs: o.pauseMs,
        stopped: () => stopped,
        onAck: (w) => acked.push(w),
      }),
    );
    const injected: { what: string; at: number }[] = [];
    const faults = (async () => {
      for (const f of o.faults) {
        await sleep(Math.max(0, t0 + f.atMs - Date.now()));
        injected.push({ what: f.what, at: Date.now() });
        await f.run();
      }
    })();
    // A writer that fails stops the load at once (its error is the test's).
    const loadTimer = sleep(o.loadMs);
    await Promise.race([loadTimer, Promise.all(writers)]);
    await faults;
    stopped = true;
    await Promise.all(writers);

    // A last write after all the others, whose resourceVersion every watcher must reach (a delete's is not answered).
    const fencer = new HAClient(urls, o.kapi.token, o.kapi.ca, urls.length - 1);
    const fenceStarted = Date.now();
    const fence = await fencer.request('POST', `/api/v1/namespaces/${o.namespace}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'ha-fence' },
      data: { seq: '0' },
    });
    fencer.close();
    if (fence.status !== 201) throw new Error(`the fence write: ${fence.status} ${JSON.stringify(fence.body)}`);
    const maxRV = BigInt(fence.body.metadata.resourceVersion);
    acked.push({
      name: 'ha-fence',
      seq: 0,
      rv: maxRV,
      shows: '0',
      startedAt: fenceStarted,
      ackedAt: Date.now(),
      via: 'create',
      retries: 0,
      writer: -1,
      server: urls[urls.length - 1] as string,
    });
    const caught = await Promise.all(watchers.map((w) => w.waitFor(maxRV, o.catchUpMs)));

    const lister = new HAClient(urls, o.kapi.token, o.kapi.ca, urls.length - 1);
    const res = await lister.request('GET', `/api/v1/namespaces/${o.namespace}/configmaps`);
    lister.close();
    if (res.status !== 200) throw new Error(`final LIST: ${res.status} ${JSON.stringify(res.body)}`);
    const finalItems = new Map<string, FinalState>();
    for (const item of res.body.items)
      finalItems.set(item.metadata.name, { rv: BigInt(item.metadata.resourceVersion), seq: Number(item.data?.seq) });
    // Every live process's watch cache, read at the last acknowledged write or later, holds the same objects.
    const cacheMismatches: string[] = [];
    for (const p of o.kapi.processes) {
      if (!p.alive()) continue;
      const c = new HAClient([p.url], o.kapi.token, o.kapi.ca);
      const cached = await c.request(
        'GET',
        `/api/v1/namespaces/${o.namespace}/configmaps?resourceVersion=${maxRV}&resourceVersionMatch=NotOlderThan`,
      );
      c.close();
      if (cached.status !== 200) throw new Error(`LIST from the cache of ${p.url}: ${cached.status} ${JSON.stringify(cached.body)}`);
      const got = new Map<string, string>(cached.body.items.map((i: KubeItem) => [i.metadata.name, i.metadata.resourceVersion]));
      for (const [name, f] of finalItems)
        if (got.get(name) !== String(f.rv)) cacheMismatches.push(`${p.url}: ${name} at ${got.get(name) ?? 'absent'}, not ${f.rv}`);
      for (const name of got.keys()) if (!finalItems.has(name)) cacheMismatches.push(`${p.url}: ${name} should not be there`);
    }

    await Promise.all(watchers.map((w) => w.stop()));
    const ackedByServer = new Map<string, number>();
    for (const w of acked) ackedByServer.set(w.server, (ackedByServer.get(w.server) ?? 0) + 1);
    const writeRetries = new Map<string, number>();
    for (const c of writerClients) merge(writeRetries, c.retries);
    const watchRetries = new Map<string, number>();
    for (const w of watchers) merge(watchRetries, w.client.retries);
    return {
      acked,
      ackedByServer,
      writeRetries,
      watchRetries,
      slowestWriteMs: acked.reduce((m, w) => Math.max(m, w.ackedAt - w.startedAt), 0),
      faults: injected.map((f) => {
        const firstAfter = writerClients.map((_, i) => {
          const after = acked.filter((w) => w.writer === i && w.startedAt >= f.at).map((w) => w.ackedAt);
          return after.length ? Math.min(...after) - f.at : undefined;
        });
        const recovered = firstAfter.every((ms) => ms !== undefined) ? Math.max(...(firstAfter as number[])) : undefined;
        return { what: f.what, atMs: f.at - t0, recoveredMs: recovered };
      }),
      startedAt: t0,
      retrySamples: [...new Set([...writerClients, ...watchers.map((w) => w.client)].flatMap((c) => [...c.samples]))],
      list: checkFinalList(finalItems, acked),
      cacheMismatches,
      watchers: watchers.map((w, i) => checkWatcher(urls[i] as string, w, acked)),
      caughtUp: caught.filter(Boolean).length,
    };
  } finally {
    await Promise.all(watchers.map((w) => w.stop()));
    for (const c of [...writerClients, ...watchers.map((w) => w.client)]) c.close();
  }
}

function counts(m: ReadonlyMap<string, number>): string {
  let total = 0;
  for (const v of m.values()) total += v;
  return `${total}${m.size ? ` (${[...m].map(([k, v]) => `${k}×${v}`).join(', ')})` : ''}`;
}

/** The figures of a run, as the test prints them. */
export function describeResult(title: string, r: ScenarioResult): string {
  const sum = (f: (w: WatchFigures) => number) => r.watchers.reduce((s, w) => s + f(w), 0);
  return [
    `HA ${title}:`,
    `  writes acknowledged ${r.acked.length} (${r.acked.filter((w) => w.via === 'create' || w.via === 'read-back').length} creates, ${r.acked.filter((w) => w.via === 'update').length} updates, ${r.acked.filter((w) => w.rv === undefined).length} deletes; by server: ${[...r.ackedByServer.values()].join('/')}; found applied after a lost answer: ${r.acked.filter((w) => w.via === 'read-back' || w.via === 'delete-again').length}), slowest ${r.slowestWriteMs} ms`,
    `  client retries: writers ${counts(r.writeRetries)}; watchers ${counts(r.watchRetries)}`,
    `  lost ${r.list.lost}, final resourceVersion mismatches ${r.list.mismatched}, watch caches differing from the final list ${r.cacheMismatches.length}`,
    `  watchers ${r.watchers.length}, caught up ${r.caughtUp}: events ${sum((w) => w.events)}, gaps ${sum((w) => w.gaps)}, duplicates ${sum((w) => w.duplicates)}, out of order ${sum((w) => w.outOfOrder)}, unknown ${sum((w) => w.unknown)}, relists after 410 ${sum((w) => w.relists)}, resumes ${sum((w) => w.resumes)}`,
    ...r.faults.map((f) => `  fault at ${f.atMs} ms: ${f.what}; every writer acknowledged again within ${f.recoveredMs ?? '—'} ms`),
    ...r.retrySamples.map((s) => `  retried on ${s}`),
    ...[...r.acked]
      .sort((a, b) => b.ackedAt - b.startedAt - (a.ackedAt - a.startedAt))
      .slice(0, 3)
      .map(
        (w) =>
          `  slow write: ${w.name} seq ${w.seq} ${w.ackedAt - w.startedAt} ms from ${w.startedAt - r.startedAt} ms, ${w.retries} retries, answered by ${w.server}`,
      ),
    ...[...r.list.samples, ...r.cacheMismatches.slice(0, 5), ...r.watchers.flatMap((w) => w.samples)].map((s) => `  ! ${s}`),
  ].join('\n');
}
