import type { WatchEvent } from '@kapi/apimachinery';
import type { WatchOptions, WatchQueue } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import type { RangeResponse, WatchEventMessage } from '../client/messages.ts';
import { Keyspace } from '../keyspace.ts';
import { EtcdWatch, type WatchContext } from './etcd-watch.ts';
import type { WatchHandler, WatchMux } from './watch-mux.ts';

// What the stream hands a watch is driven by hand here, so the order of events, etcd's progress notifications and
// requested BOOKMARKs is exact (a real etcd delivers local events too fast for a race to show).

const keys = new Keyspace('');

function start(opts: WatchOptions, range: WatchContext['range'] = () => Promise.reject(new Error('no range expected'))) {
  let handler: WatchHandler | undefined;
  const mux = {
    add: (_target: unknown, _start: number, h: WatchHandler) => {
      handler = h;
      return () => {};
    },
  } as unknown as WatchMux;
  const ctx: WatchContext = {
    mux,
    keys,
    range,
    currentRevision: () => Promise.reject(new Error('no revision read expected')),
    // No timed BOOKMARKs: whatever BOOKMARK shows up here was requested.
    progressIntervalMs: 3_600_000,
    queueLimit: 1000,
  };
  const watch = new EtcdWatch(ctx, '/registry/widgets', opts, () => {});
  watch.start();
  return {
    watch,
    handler: () => {
      if (!handler) throw new Error('the watch is not on the stream yet');
      return handler;
    },
  };
}

const put = (name: string, rev: number): WatchEventMessage => ({
  type: 'PUT',
  kv: {
    key: keys.encode(`/registry/widgets/${name}`),
    create_revision: rev,
    mod_revision: rev,
    version: 1,
    value: Buffer.from(JSON.stringify({ kind: 'Widget', metadata: { name } })),
    lease: 0,
  },
  prev_kv: null,
});

/** What the watch has queued so far, as "TYPE@rv". */
async function drain(q: WatchQueue): Promise<string[]> {
  const out: string[] = [];
  const it = q[Symbol.asyncIterator]();
  while (q.queued > 0) {
    const { value } = (await it.next()) as IteratorYieldResult<WatchEvent>;
    out.push(`${value.type}@${value.object.metadata?.resourceVersion}`);
  }
  return out;
}

describe('EtcdWatch.requestProgress', () => {
  it('owes the BOOKMARK until everything up to the revision has arrived in order: an event at or above it', async () => {
    const { watch, handler } = start({ resourceVersion: '10', progressNotify: true });
    handler().events([put('a', 11)]);
    // Revision 13 was read while the events of 12 and 13 were still on their way.
    watch.requestProgress(13);
    expect(await drain(watch.queue)).toEqual(['ADDED@11']);
    handler().events([put('b', 12)]);
    expect(await drain(watch.queue)).toEqual(['ADDED@12']);
    handler().events([put('c', 13), put('d', 14)]);
    expect(await drain(watch.queue)).toEqual(['ADDED@13', 'ADDED@14', 'BOOKMARK@14']);
  });

  it('or etcd’s own progress notification at or above it (one below it does not pay)', async () => {
    const { watch, handler } = start({ resourceVersion: '10', progressNotify: true });
    watch.requestProgress(15);
    handler().progress(14);
    expect(await drain(watch.queue)).toEqual([]);
    handler().progress(16);
    handler().progress(17);
    expect(await drain(watch.queue)).toEqual(['BOOKMARK@16']);
  });

  it('pays at once when everything up to the revision was already delivered, also to a watch still starting', async () => {
    let listed: (res: RangeResponse) => void = () => {};
    const listing = new Promise<RangeResponse>((resolve) => {
      listed = resolve;
    });
    const { watch, handler } = start({ resourceVersion: '0', progressNotify: true }, () => listing);
    // Still listing its initial state: nothing is delivered yet, so the BOOKMARK waits for the stream.
    watch.requestProgress(9);
    expect(await drain(watch.queue)).toEqual([]);
    listed({ header: { revision: 10 }, kvs: [put('a', 7).kv], more: false, count: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await drain(watch.queue)).toEqual(['ADDED@7', 'BOOKMARK@10']);
    handler().events([put('a', 11)]);
    watch.requestProgress(11);
    expect(await drain(watch.queue)).toEqual(['ADDED@11', 'BOOKMARK@11']);
  });

  it('several requests before it is paid get one BOOKMARK covering the highest', async () => {
    const { watch, handler } = start({ resourceVersion: '10', progressNotify: true });
    watch.requestProgress(12);
    watch.requestProgress(14);
    handler().progress(13);
    expect(await drain(watch.queue)).toEqual([]);
    handler().progress(14);
    expect(await drain(watch.queue)).toEqual(['BOOKMARK@14']);
  });

  it('etcd’s answer to a progress request (3.4.31+) is a BOOKMARK at once, however recent the last event', async () => {
    const { watch, handler } = start({ resourceVersion: '10', progressNotify: true });
    handler().events([put('a', 11)]);
    handler().progress(15);
    expect(await drain(watch.queue)).toEqual(['ADDED@11']);
    handler().progress(16, true);
    expect(await drain(watch.queue)).toEqual(['BOOKMARK@16']);
  });

  it('a watch without progressNotify owes nothing', async () => {
    const { watch, handler } = start({ resourceVersion: '10', allowWatchBookmarks: true });
    watch.requestProgress(11);
    handler().events([put('a', 11)]);
    handler().progress(12);
    expect(await drain(watch.queue)).toEqual(['ADDED@11']);
  });
});
