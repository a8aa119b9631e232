import { EventEmitter } from 'node:events';
import { isStorageError } from '@kapi/storage';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WatchStream } from '../client/etcd-client.ts';
import type { KeyValue, WatchCreateRequest, WatchRequest, WatchResponse } from '../client/messages.ts';
import { type WatchHandler, WatchMux } from './watch-mux.ts';

/** A stand-in for a gRPC watch stream: records what is written, lets the test answer or break it. */
class FakeStream extends EventEmitter {
  written: WatchRequest[] = [];
  cancelled = false;
  write(req: WatchRequest): boolean {
    this.written.push(req);
    return true;
  }
  cancel(): void {
    this.cancelled = true;
  }
  creates(): WatchCreateRequest[] {
    return this.written.flatMap((r) => ('create_request' in r ? [r.create_request] : []));
  }
  respond(res: Partial<WatchResponse> & { watch_id: number }): void {
    this.emit('data', {
      header: { revision: 0 },
      created: false,
      canceled: false,
      compact_revision: 0,
      cancel_reason: '',
      events: [],
      ...res,
    });
  }
}

function setup(reconnectTimeoutMs = 10_000) {
  const streams: FakeStream[] = [];
  const mux = new WatchMux(
    {
      watch: () => {
        const s = new FakeStream();
        streams.push(s);
        return s as unknown as WatchStream;
      },
      watchError: (_stream, err) => err,
    },
    { reconnectTimeoutMs },
  );
  return { mux, streams, last: () => streams[streams.length - 1] as FakeStream };
}

function recorder() {
  const log: string[] = [];
  const handler: WatchHandler = {
    events: (evs) => log.push(...evs.map((e) => `${e.type}@${e.kv.mod_revision}`)),
    progress: (rev, requested) => log.push(`${requested ? 'requested' : 'progress'}@${rev}`),
    compacted: () => log.push('compacted'),
    failed: (err) => log.push(`failed:${isStorageError(err, 'Unreachable') ? 'Unreachable' : err.message}`),
  };
  return { log, handler };
}

const kv = (rev: number): KeyValue => ({
  key: Buffer.from('/k'),
  create_revision: rev,
  mod_revision: rev,
  version: 1,
  value: Buffer.from('{}'),
  lease: 0,
});
const put = (rev: number) => ({ type: 'PUT' as const, kv: kv(rev), prev_kv: null });
const target = { key: Buffer.from('/a/'), rangeEnd: Buffer.from('/a0'), progressNotify: false };

afterEach(() => {
  vi.useRealTimers();
});

describe('WatchMux', () => {
  it('puts every watcher on one stream with its own id and routes responses by id', () => {
    const { mux, streams, last } = setup();
    const a = recorder();
    const b = recorder();
    mux.add(target, 5, a.handler);
    mux.add({ ...target, progressNotify: true }, 9, b.handler);
    expect(streams).toHaveLength(1);
    expect(
      last()
        .creates()
        .map((c) => [c.watch_id, c.start_revision, c.prev_kv, c.progress_notify]),
    ).toEqual([
      [1, 5, true, false],
      [2, 9, true, true],
    ]);
    last().respond({ watch_id: 1, created: true });
    last().respond({ watch_id: 1, events: [put(6), put(7)] });
    last().respond({ watch_id: 2, header: { revision: 12 } });
    last().respond({ watch_id: 99, events: [put(8)] });
    expect(a.log).toEqual(['PUT@6', 'PUT@7']);
    expect(b.log).toEqual(['progress@12']);
  });

  it('a progress request goes on the stream; its answer (watch id -1) reaches every watcher that was on it, not later ones', () => {
    const { mux, last } = setup();
    expect(mux.requestProgress()).toBe(false);
    const a = recorder();
    const b = recorder();
    const late = recorder();
    mux.add(target, 5, a.handler);
    mux.add(target, 5, b.handler);
    expect(mux.requestProgress()).toBe(true);
    expect(last().written.filter((r) => 'progress_request' in r)).toHaveLength(1);
    // Created after the request: it may still be replaying revisions below the answer.
    mux.add(target, 3, late.handler);
    last().respond({ watch_id: 1, events: [put(6)] });
    last().respond({ watch_id: -1, header: { revision: 8 } });
    // An answer nobody is waiting for (several requests answered at once) goes nowhere.
    last().respond({ watch_id: -1, header: { revision: 9 } });
    expect(a.log).toEqual(['PUT@6', 'requested@8']);
    expect(b.log).toEqual(['requested@8']);
    expect(late.log).toEqual([]);
  });

  it('re-creates every watcher after a break from the revision after the last one delivered (events or progress)', async () => {
    vi.useFakeTimers();
    const { mux, streams, last } = setup();
    const a = recorder();
    const b = recorder();
    const c = recorder();
    mux.add(target, 5, a.handler);
    mux.add(target, 5, b.handler);
    mux.add(target, 5, c.handler);
    last().respond({ watch_id: 1, events: [put(6), put(9)] });
    last().respond({ watch_id: 2, header: { revision: 20 } });
    last().emit('error', new Error('14 UNAVAILABLE: Connection dropped'));
    expect(streams).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60);
    expect(streams).toHaveLength(2);
    expect(
      last()
        .creates()
        .map((r) => [r.watch_id, r.start_revision]),
    ).toEqual([
      [1, 10],
      [2, 21],
      [3, 5],
    ]);
    last().respond({ watch_id: 1, events: [put(10)] });
    expect(a.log).toEqual(['PUT@6', 'PUT@9', 'PUT@10']);
  });

  it('backs off while the stream keeps breaking, then gives every watcher up as Unreachable', async () => {
    vi.useFakeTimers();
    const { mux, streams, last } = setup(1000);
    const a = recorder();
    mux.add(target, 5, a.handler);
    for (let i = 0; i < 20 && a.log.length === 0; i++) {
      last().emit('error', new Error('14 UNAVAILABLE: No connection established'));
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(a.log).toEqual(['failed:Unreachable']);
    // Retries at 50, 100, 200, 400 ms…: a handful of attempts in one second, none after giving up.
    expect(streams.length).toBeGreaterThan(2);
    expect(streams.length).toBeLessThan(8);
    const attempts = streams.length;
    await vi.advanceTimersByTimeAsync(5000);
    expect(streams.length).toBe(attempts);
  });

  it('a response resets the give-up clock', async () => {
    vi.useFakeTimers();
    const { mux, last } = setup(1000);
    const a = recorder();
    mux.add(target, 5, a.handler);
    last().respond({ watch_id: 1, created: true });
    await vi.advanceTimersByTimeAsync(5000);
    expect(a.log).toEqual([]);
  });

  it('a compacted watcher gets compacted(), a cancelled one failed(); others go on', () => {
    const { mux, last } = setup();
    const a = recorder();
    const b = recorder();
    const c = recorder();
    mux.add(target, 2, a.handler);
    mux.add(target, 2, b.handler);
    mux.add(target, 2, c.handler);
    last().respond({ watch_id: 1, canceled: true, compact_revision: 7 });
    last().respond({ watch_id: 2, canceled: true, cancel_reason: 'permission denied' });
    last().respond({ watch_id: 1, events: [put(8)] });
    last().respond({ watch_id: 3, events: [put(8)] });
    expect(a.log).toEqual(['compacted']);
    expect(b.log).toEqual(['failed:etcd cancelled the watch: permission denied']);
    expect(c.log).toEqual(['PUT@8']);
    // etcd already dropped them: no cancel requests are sent for these.
    expect(last().written.filter((r) => 'cancel_request' in r)).toEqual([]);
  });

  it('cancelling a watcher tells etcd; cancelling the last one ends the stream', () => {
    const { mux, last } = setup();
    const cancelA = mux.add(target, 2, recorder().handler);
    const cancelB = mux.add(target, 2, recorder().handler);
    cancelA();
    cancelA();
    expect(last().written.filter((r) => 'cancel_request' in r)).toEqual([{ cancel_request: { watch_id: 1 } }]);
    expect(last().cancelled).toBe(false);
    cancelB();
    expect(last().cancelled).toBe(true);
  });

  it('after close() nothing more is delivered and no watcher can be added', () => {
    const { mux, last } = setup();
    const a = recorder();
    mux.add(target, 2, a.handler);
    const stream = last();
    mux.close();
    stream.respond({ watch_id: 1, events: [put(3)] });
    expect(a.log).toEqual([]);
    expect(stream.cancelled).toBe(true);
    expect(() => mux.add(target, 2, a.handler)).toThrow(/closed/);
  });
});
