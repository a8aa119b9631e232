/**
 * Memory per object of the whole example server: the control plane `npm start` runs (startControlPlane over
 * MemoryStorage, watch caches in front) after N ConfigMaps of about 1,070 bytes of JSON are created over HTTP and then
 * updated once each. Figures are heap + array buffers after gc (node --expose-gc), per ConfigMap, next to the JSON
 * size of the ConfigMap as the server returns it; then the same after the storage's history is compacted to the head
 * (what history costs), with the encoding memo emptied (a constant: it holds at most 16 MiB, whatever the count), and
 * with the watch caches' history forgotten too (what the server keeps once kube's 75 s window has moved on).
 * The registry's StoredManagedFieldsCache (decoded managedFields of up to 1,000 stored versions per resource) is another
 * constant, about 2.5 MB per busy resource.
 *
 * Then, since those totals divide the server's constants by N too (code compiled under load, the bounded caches, hash
 * tables that shrink only on a later insert), what one more ConfigMap costs: after a small batch that lets them settle,
 * as many more as the server holds (each table grows once, as on average), with their watch-cache history and after.
 *
 * Where the bytes go (heap snapshots before and after, dominator tree; 10,000 ConfigMaps of 1,073 bytes, created and
 * updated once, storage compacted, memo emptied; bytes per ConfigMap, issue 18): the current version ~1,180 (its
 * managedFields and labels shared with the previous one); the Cacher's event history ~1,160 while both revisions are in
 * kube's 75 s window (the previous version's changed parts ~940, two events ~160, the ring's slots ~60; nothing once
 * the window moves on); the garbage collector's owner graph ~220 (a node per object as kube's; ~375 before its empty
 * dependents Set went); recurring strings ~170-240 (the key, once per object since issue 18, name, uid,
 * resourceVersion); MemoryStorage's MVCC entry ~130; the watch cache's store ~80 (~200 before its entry objects and
 * its namespace index of default-layout keys went); the storage-key WeakMap ~80 (an entry per version); constants
 * that show per object at N = 10,000: StoredManagedFieldsCache ~210 (1,000 decodings per resource), compiled code and
 * module contexts ~220. Run: `npm run bench` in examples/control-plane, or
 * `node --expose-gc --conditions=@kapi/source bench/memory.bench.ts [N]`; SNAPSHOT_BEFORE, SNAPSHOT (settled) and
 * SNAPSHOT_ONE (one version left) write heap snapshots.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { MemoryStorage } from '@kapi/storage';
import { encodingMemoBytes, setEncodingMemoLimit } from '@kapi/watchcache';
import { startControlPlane } from '../src/control-plane.ts';

// Bytecode of functions not run for a while is dropped after some collections (each measurement runs three): left on,
// startup code would shrink between the rows below and pass for objects that cost less.
setFlagsFromString('--no-flush-bytecode');

const N = Number(process.argv[2] ?? 10_000);
const CONCURRENCY = 16;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) console.log('(no --expose-gc: figures are rough)');

const heap = async (): Promise<number> => {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 20));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

const dataDir = await mkdtemp(join(tmpdir(), 'kapi-memory-bench-'));
const storage = new MemoryStorage();
const plane = await startControlPlane({ storage, port: 0, dataDir, insecureHTTP: true });
const headers = { authorization: `Bearer ${plane.token}`, 'content-type': 'application/json' };
const base = `${plane.url}/api/v1/namespaces/default/configmaps`;
const value = (i: number, gen: number) => `${gen}-${i}-`.padEnd(560, 'abcdefghijklmnopqrstuvwxyz0123456789');
const configMap = (i: number, gen: number) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${i}`, labels: { app: 'memory-bench', shard: String(Math.abs(i) % 10) } },
  data: { 'config.yaml': value(i, gen) },
});

async function each(n: number, f: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < n; i = next++) await f(i);
    }),
  );
}
async function send(method: string, url: string, body: unknown): Promise<string> {
  const res = await fetch(url, { method, headers, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text;
}

let jsonBytes = 0;
try {
  await send('POST', base, configMap(99_999_999, 0)); // warm every path once
  await fetch(`${base}/cm-99999999`, { method: 'DELETE', headers });
  const before = await heap();
  if (process.env.SNAPSHOT_BEFORE) console.log('snapshot', writeHeapSnapshot(process.env.SNAPSHOT_BEFORE));
  await each(N, async (i) => {
    await send('POST', base, configMap(i, 0));
  });
  const created = await heap();
  await each(N, async (i) => {
    const text = await send('PUT', `${base}/cm-${i}`, configMap(i, 1));
    jsonBytes += Buffer.byteLength(text);
  });
  jsonBytes /= N;
  const updated = await heap();
  // Lists and a watch from the start of the cache's window: what serving them memoizes.
  const list = await fetch(`${base}?resourceVersion=0`, { headers });
  await list.arrayBuffer();
  const listed = await heap();
  await storage.compact(Number(await storage.currentResourceVersion()));
  const compacted = await heap();
  const memo = encodingMemoBytes();
  setEncodingMemoLimit(0);
  const noMemo = await heap();
  if (process.env.SNAPSHOT) console.log('snapshot', writeHeapSnapshot(process.env.SNAPSHOT));
  // What the window moving on leaves: no event history, one version of each object (the floor while idle).
  await plane.server.compactWatchCaches();
  const noHistory = await heap();
  if (process.env.SNAPSHOT_ONE) console.log('snapshot', writeHeapSnapshot(process.env.SNAPSHOT_ONE));
  // What one more ConfigMap costs, whatever the server's constants (the bounded caches, hash tables that shrink only on
  // an insert after a compaction emptied them): a small batch lets those settle, then as many ConfigMaps again as the
  // server holds, so that every per-object table grows exactly once, as it does on average. Each is created and
  // updated once and settled as above (storage history compacted, no encoding memo), then measured with its
  // watch-cache history and after it.
  const more = async (from: number, count: number) => {
    await each(count, async (i) => {
      await send('POST', base, configMap(from + i, 0));
    });
    await each(count, async (i) => {
      await send('PUT', `${base}/cm-${from + i}`, configMap(from + i, 1));
    });
    await storage.compact(Number(await storage.currentResourceVersion()));
    const withHistory = await heap();
    await plane.server.compactWatchCaches();
    return { withHistory, oneVersion: await heap() };
  };
  const W = Math.ceil(N / 10);
  const warm = await more(N, W);
  const M = N + W;
  const marginal = await more(N + W, M);
  setEncodingMemoLimit();

  const row = (name: string, bytes: number) =>
    console.log(`${name.padEnd(64)}${Math.round(bytes).toString().padStart(8)}${(bytes / jsonBytes).toFixed(2).padStart(8)}×`);
  console.log(
    `\nthe example server on MemoryStorage, ${N} ConfigMaps over HTTP, node ${process.version}; bytes per ConfigMap, heap + array buffers after gc`,
  );
  row('JSON size of the ConfigMap (as the server returns it)', jsonBytes);
  row('after the creates', (created - before) / N);
  row('after one update each (two revisions in history)', (updated - before) / N);
  row('… and a LIST of them all from the watch cache', (listed - before) / N);
  row("… after the storage's history is compacted to the head", (compacted - before) / N);
  row(`… and the encoding memo emptied (it held ${(memo / 2 ** 20).toFixed(1)} MiB)`, (noMemo - before) / N);
  row("… and the watch caches' history forgotten (one version left)", (noHistory - before) / N);
  row(`${M} more (as many as held), each: its history in the window`, (marginal.withHistory - warm.oneVersion) / M);
  row('… and once the window has moved on (one version)', (marginal.oneVersion - warm.oneVersion) / M);
  const live = await heap();
  const mu = process.memoryUsage();
  // rss also counts what the heap grew to under load (V8 keeps it) and the process's code: the live objects are above.
  console.log(
    `server heap + array buffers: ${(live / 2 ** 20).toFixed(0)} MiB live; heap reserved ${(mu.heapTotal / 2 ** 20).toFixed(0)} MiB, rss ${(mu.rss / 2 ** 20).toFixed(0)} MiB`,
  );
} finally {
  await plane.stop();
  await rm(dataDir, { recursive: true, force: true });
}
