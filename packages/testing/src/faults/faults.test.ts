import { CoreV1Api, ListWatch, type V1ConfigMap, Watch } from '@kubernetes/client-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { expiredWatchEvent } from './end-watch.ts';
import { conflict, internalError, serviceUnavailable, timeout, tooManyRequests } from './fault-status.ts';
import { Faults } from './faults.ts';
import { type FaultsServer, startFaultsServer } from './test-support/faults-server.ts';

let servers: FaultsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
});
async function start(options?: Parameters<typeof startFaultsServer>[0]): Promise<FaultsServer & { api: CoreV1Api }> {
  const s = await startFaultsServer(options);
  servers.push(s);
  return { ...s, api: s.kubeConfig.makeApiClient(CoreV1Api) };
}
const cm = (name: string): V1ConfigMap => ({ metadata: { name }, data: { k: 'v' } });

/** client-node's ApiException: the HTTP code, the headers and the body as text. */
async function failure(p: Promise<unknown>): Promise<{ code: number; headers: Record<string, string>; body: unknown }> {
  const err = (await p.then(
    () => expect.fail('the request succeeded'),
    (e: unknown) => e,
  )) as { code: number; headers: Record<string, string>; body: string };
  return { code: err.code, headers: err.headers, body: JSON.parse(err.body) };
}

describe('Faults.failNext', () => {
  it('fails the next create with 409 Conflict in kube Status form; the retry succeeds', async () => {
    const s = await start();
    s.faults.failNext(1, conflict(), { verb: 'create', resource: 'configmaps' });
    const first = await failure(s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('a') }));
    expect(first.code).toBe(409);
    expect(first.body).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message: expect.stringContaining('Operation cannot be fulfilled on configmaps'),
    });
    const created = await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    expect(created.metadata?.name).toBe('a');
  });

  it('leaves requests the match does not take alone, and fails exactly N of those it does', async () => {
    const s = await start();
    await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    s.faults.failNext(2, internalError('boom'), { verb: 'get', name: 'b' });
    await expect(s.api.readNamespacedConfigMap({ namespace: 'default', name: 'a' })).resolves.toBeTruthy();
    await s.api.listNamespacedConfigMap({ namespace: 'default' });
    for (let i = 0; i < 2; i++) {
      const f = await failure(s.api.readNamespacedConfigMap({ namespace: 'default', name: 'b' }));
      expect(f.code).toBe(500);
      expect(f.body).toMatchObject({ reason: 'InternalError', message: 'Internal error occurred: boom' });
    }
    // The third is the real answer: b does not exist.
    expect((await failure(s.api.readNamespacedConfigMap({ namespace: 'default', name: 'b' }))).code).toBe(404);
  });

  it('answers 429 with a Retry-After header', async () => {
    const s = await start();
    s.faults.failNext(1, tooManyRequests(7), { verb: 'list' });
    const f = await failure(s.api.listNamespacedConfigMap({ namespace: 'default' }));
    expect(f.code).toBe(429);
    expect(f.headers['retry-after']).toBe('7');
    expect(f.body).toMatchObject({ reason: 'TooManyRequests', details: { retryAfterSeconds: 7 } });
    await expect(s.api.listNamespacedConfigMap({ namespace: 'default' })).resolves.toBeTruthy();
  });

  it('answers 504 Timeout and 503 ServiceUnavailable', async () => {
    const s = await start();
    s.faults.failNext(1, timeout());
    const f = await failure(s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('a') }));
    expect(f.code).toBe(504);
    expect(f.body).toMatchObject({ reason: 'Timeout', message: 'Timeout: request did not complete within the allotted timeout' });
    s.faults.failNext(1, serviceUnavailable(), { verb: 'list' });
    expect((await failure(s.api.listNamespacedConfigMap({ namespace: 'default' }))).body).toMatchObject({
      code: 503,
      reason: 'ServiceUnavailable',
    });
    // Nothing was stored: the fault answered before the handler ran.
    expect((await s.api.listNamespacedConfigMap({ namespace: 'default' })).items).toEqual([]);
  });
});

describe('Faults.delay', () => {
  it('holds matching requests on the clock it is given until the time passes; others go through', async () => {
    const s = await start({ delayOnClock: true });
    s.faults.delay(5_000, { verb: 'list' });
    let done = false;
    const slow = s.api.listNamespacedConfigMap({ namespace: 'default' }).then(() => {
      done = true;
    });
    await vi.waitFor(() => expect(s.requests).toContain('list configmaps'));
    await expect(s.api.readNamespace({ name: 'default' })).resolves.toBeTruthy();
    expect(done).toBe(false);
    s.clock.advance(4_999);
    await s.api.readNamespace({ name: 'default' });
    expect(done).toBe(false);
    s.clock.advance(1);
    await slow;
  });

  it('waits real time by default (what a client observes), and clear() lets delayed requests through at once', async () => {
    const s = await start();
    s.faults.delay(60_000, { verb: 'get', resource: 'namespaces' });
    const started = performance.now();
    const slow = s.api.readNamespace({ name: 'default' });
    await vi.waitFor(() => expect(s.requests).toContain('get namespaces'));
    // The server's FakeClock does not release it.
    s.clock.advance(120_000);
    await s.api.listNamespacedConfigMap({ namespace: 'default' });
    s.faults.clear();
    await expect(slow).resolves.toMatchObject({ metadata: { name: 'default' } });
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it('delays only the next `times` matching requests when told', async () => {
    const s = await start({ delayOnClock: true });
    s.faults.delay(1_000, { verb: 'get' }, { times: 1 });
    const slow = s.api.readNamespace({ name: 'default' });
    await vi.waitFor(() => expect(s.requests).toContain('get namespaces'));
    await expect(s.api.readNamespace({ name: 'default' })).resolves.toBeTruthy();
    s.clock.advance(1_000);
    await slow;
  });
});

/** A client-node informer over configmaps in "default", reconnecting at once (no backoff between watches). */
function informer(s: FaultsServer & { api: CoreV1Api }): ListWatch<V1ConfigMap> {
  return new ListWatch<V1ConfigMap>(
    '/api/v1/namespaces/default/configmaps',
    new Watch(s.kubeConfig),
    () => s.api.listNamespacedConfigMap({ namespace: 'default' }),
    false,
    undefined,
    undefined,
    { delayFn: async () => {} },
  );
}
const lists = (s: FaultsServer): string[] => s.requests.filter((r) => r.startsWith('list configmaps'));
const watches = (s: FaultsServer): string[] => s.requests.filter((r) => r.startsWith('watch configmaps'));

describe('Faults.endWatches', () => {
  it('ends open watches cleanly: the informer watches again from its resourceVersion, without a LIST', async () => {
    const s = await start();
    const inf = informer(s);
    await inf.start();
    try {
      await vi.waitFor(() => expect(watches(s)).toHaveLength(1));
      await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
      await vi.waitFor(() => expect(inf.get('a', 'default')).toBeTruthy());
      expect(await s.faults.endWatches({ resource: 'configmaps' })).toBe(1);
      await vi.waitFor(() => expect(watches(s)).toHaveLength(2));
      expect(lists(s)).toHaveLength(1);
      const rv = inf.get('a', 'default')?.metadata?.resourceVersion;
      expect(watches(s)[1]).toContain(`resourceVersion=${rv}`);
      // The new watch is live.
      await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
      await vi.waitFor(() => expect(inf.get('b', 'default')).toBeTruthy());
    } finally {
      await inf.stop();
    }
  });

  it("ends them with kube's 410 Expired ERROR event: the informer relists", async () => {
    const s = await start();
    const inf = informer(s);
    await inf.start();
    try {
      await vi.waitFor(() => expect(watches(s)).toHaveLength(1));
      expect(lists(s)).toHaveLength(1);
      // Not the watches of another resource.
      expect(await s.faults.endWatches({ resource: 'namespaces' }, { expired: true })).toBe(0);
      expect(await s.faults.endWatches({}, { expired: true })).toBe(1);
      await vi.waitFor(() => expect(lists(s)).toHaveLength(2));
      await vi.waitFor(() => expect(watches(s)).toHaveLength(2));
    } finally {
      await inf.stop();
    }
  });

  it('writes the Status kube sends for a watch whose start is compacted', () => {
    expect(JSON.parse(expiredWatchEvent())).toEqual({
      type: 'ERROR',
      object: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'The resourceVersion for the provided watch is too old.',
        reason: 'Expired',
        code: 410,
      },
    });
  });
});

/** The first event of a watch response, then the stream is closed. */
async function firstEvent(res: Response): Promise<unknown> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (!text.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel();
  }
  return JSON.parse(text.split('\n')[0] as string);
}

describe('Faults.compact', () => {
  it('compacts the storage: a watch from an older resourceVersion gets 410 Expired', async () => {
    const s = await start({ watchCache: false });
    const a = await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('c') });
    const old = a.metadata?.resourceVersion;
    // Before: the watch replays b and c.
    const before = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${old}&timeoutSeconds=1`);
    expect(await firstEvent(before)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'b' } } });

    const revision = await s.faults.compact();
    expect(revision).toBe(Number((await s.api.listNamespacedConfigMap({ namespace: 'default' })).metadata?.resourceVersion));
    const after = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${old}`);
    const lines = (await after.text()).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired' }) },
    ]);
    // And a list at it.
    const list = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?resourceVersion=${old}&resourceVersionMatch=Exact`);
    expect(list.status).toBe(410);
    // Not one "not older than" it: that reads the latest (kube's etcd3 store).
    const notOlder = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?resourceVersion=${old}&resourceVersionMatch=NotOlderThan`);
    expect(notOlder.status).toBe(200);
  });

  it("cuts the watch cache's window too: a resumed watch gets the cache's 410 Expired ERROR event, as kube's", async () => {
    const s = await start();
    const a = await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    const c = await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('c') });
    const old = a.metadata?.resourceVersion;
    const revision = await s.faults.compact();
    expect(String(revision)).toBe(c.metadata?.resourceVersion);
    // kube's cacher: a 200 stream of one ERROR event, the Status of "too old resource version: <rv> (<oldest>)".
    const after = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${old}`);
    expect(after.status).toBe(200);
    const lines = (await after.text()).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      {
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `too old resource version: ${old} (${revision})`,
          reason: 'Expired',
          code: 410,
        },
      },
    ]);
    // From the compacted revision on, a watch is served (the next change arrives).
    const fromNow = fetch(`${s.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${revision}&timeoutSeconds=1`);
    await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('d') });
    expect(await firstEvent(await fromNow)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'd' } } });
    // A list "not older than" the old revision is not affected; one at exactly it is 410.
    const list = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?resourceVersion=${old}&resourceVersionMatch=NotOlderThan`);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { items: V1ConfigMap[] }).items.map((i) => i.metadata?.name)).toEqual(['a', 'b', 'c', 'd']);
    const exact = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?resourceVersion=${old}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(410);
  });

  it('an informer whose watch resumes from before a compact() relists (client-node ListWatch)', async () => {
    const s = await start({ delayOnClock: true });
    await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    const inf = informer(s);
    await inf.start();
    try {
      await vi.waitFor(() => expect(watches(s)).toHaveLength(1));
      // The informer's next watch is held (on the clock) while a change it has not seen is compacted away.
      s.faults.delay(1, { verb: 'watch' }, { times: 1 });
      await s.faults.endWatches({ resource: 'configmaps' });
      await vi.waitFor(() => expect(watches(s)).toHaveLength(2));
      await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
      await s.faults.compact();
      expect(lists(s)).toHaveLength(1);
      s.clock.advance(1);
      // Its resumed watch gets 410 Expired: it lists again, and sees b.
      await vi.waitFor(() => expect(lists(s)).toHaveLength(2));
      await vi.waitFor(() => expect(inf.list('default').map((o) => o.metadata?.name)).toEqual(['a', 'b']));
    } finally {
      await inf.stop();
    }
  });

  it("with watchCaches false compacts the storage alone: the watch cache's window replays, as after etcd's compaction", async () => {
    const s = await start();
    const a = await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    await s.api.createNamespacedConfigMap({ namespace: 'default', body: cm('c') });
    await s.faults.compact({ watchCaches: false });
    const res = await fetch(
      `${s.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${a.metadata?.resourceVersion}&timeoutSeconds=1`,
    );
    expect(await firstEvent(res)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'b' } } });
  });

  it('needs a storage that keeps history', async () => {
    await expect(new Faults().compact()).rejects.toThrow(/needs the storage/);
  });
});

/** What a reset looks like to the client: fetch's error and its cause (undici, under client-node: "fetch failed", caused by "read ECONNRESET"). */
function resetText(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: unknown } | null;
  return e ? `${e.code} ${e.message} ${e.cause ? resetText(e.cause) : ''}` : '';
}

describe('Faults.dropConnections', () => {
  it('resets the connection of an open watch: the client sees ECONNRESET', async () => {
    const s = await start();
    let ended: (err: unknown) => void = () => {};
    const done = new Promise<unknown>((resolve) => {
      ended = resolve;
    });
    await new Watch(s.kubeConfig).watch('/api/v1/namespaces/default/configmaps', {}, () => {}, ended);
    await vi.waitFor(() => expect(watches(s)).toHaveLength(1));
    expect(s.faults.dropConnections({ verb: 'create' })).toBe(0);
    expect(s.faults.dropConnections({ verb: 'watch' })).toBe(1);
    const err = await done;
    expect(resetText(err)).toMatch(/ECONNRESET/);
  });

  it('resets the next N matching requests: the client sees ECONNRESET; the one after is served', async () => {
    const s = await start();
    expect(s.faults.dropConnections({ verb: 'get', resource: 'namespaces' }, { next: 1 })).toBe(0);
    const err = await s.api.readNamespace({ name: 'default' }).then(
      () => expect.fail('the request succeeded'),
      (e: Error) => e,
    );
    expect(resetText(err)).toMatch(/ECONNRESET/);
    await expect(s.api.readNamespace({ name: 'default' })).resolves.toBeTruthy();
  });
});
