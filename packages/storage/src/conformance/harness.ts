import { decodeContinue, type KubeObject, type Status, StatusError, toStatusError, type WatchEvent } from '@kapi/apimachinery';
import { expect, it } from 'vitest';
import type { Storage, Watch, WatchOptions } from '../interfaces.ts';
import { isStorageError, type StorageErrorCode } from '../storage-error.ts';

/** What a backend's test gives the suite, once per test case. */
export interface ConformanceHarness {
  storage: Storage;
  /** Every key the suite uses lives under this prefix (e.g. "/registry/widgets"), so a watch cache for that one resource can sit in front. */
  resourcePrefix: string;
  /** Compact the backend's history up to `revision` (revisions below it become unreadable). */
  compact(revision: number): Promise<void>;
  /** Let `ms` of time pass for TTLs and progress notifications (fake clock advance on memory; a real sleep elsewhere). */
  elapse(ms: number): Promise<void>;
  /** Clean up (close storage, stop servers). */
  close(): Promise<void>;
}

/** Called before every test case; returns a fresh harness. */
export type ConformanceFactory = () => Promise<ConformanceHarness>;

export interface ConformanceOptions {
  /** The backend under test is a watch cache: it may emit bookmarks on its own schedule and serves watches from its own history. */
  cache?: boolean;
  /** Longest time the suite waits for an expected watch event (default 5000 ms). */
  eventTimeoutMs?: number;
  /** How long a progress notification can take to arrive after `elapse(progressIntervalMs)` (default: 1000). */
  progressIntervalMs?: number;
  /** The storage offers requestWatchProgress (default true); false makes the suite check that it does not. */
  progressRequests?: boolean;
}

export interface ResolvedOptions {
  cache: boolean;
  eventTimeoutMs: number;
  progressIntervalMs: number;
  progressRequests: boolean;
}

export function resolveOptions(o: ConformanceOptions = {}): ResolvedOptions {
  return {
    cache: o.cache ?? false,
    eventTimeoutMs: o.eventTimeoutMs ?? 5000,
    progressIntervalMs: o.progressIntervalMs ?? 1000,
    progressRequests: o.progressRequests ?? true,
  };
}

const TIMEOUT = Symbol('timeout');
type Timeout = typeof TIMEOUT;

function delay(ms: number): Promise<Timeout> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(TIMEOUT), ms);
    (t as { unref?: () => void }).unref?.();
  });
}

/** Races `p` against a timeout; on timeout the returned promise rejects with a message naming `what`. */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  const r = await Promise.race([p, delay(ms)]);
  if (r === TIMEOUT) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
  return r as T;
}

/** Deep-freezes a value (so any mutation by the code under test throws in strict mode). */
export function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}

/** An object's resourceVersion as a number (fails the test if it is not a decimal integer). */
export function rvOf(o: { metadata?: { resourceVersion?: string } } | null | undefined): number {
  const rv = o?.metadata?.resourceVersion;
  expect(rv, 'resourceVersion').toMatch(/^[0-9]+$/);
  return Number(rv);
}

/** `o` with metadata.resourceVersion replaced. */
export function withRV<T extends KubeObject>(o: T, rv: number | string): T {
  return { ...o, metadata: { ...o.metadata, resourceVersion: String(rv) } };
}

/** `o` without metadata.resourceVersion. */
export function withoutRV<T extends KubeObject>(o: T): T {
  const { resourceVersion: _, ...metadata } = o.metadata;
  return { ...o, metadata };
}

/** Awaits `p` (or calls `fn`) and returns what it threw; fails the test if it succeeded. */
export async function failure(p: Promise<unknown> | (() => unknown), what = 'operation'): Promise<unknown> {
  try {
    const r = typeof p === 'function' ? await p() : await p;
    expect.fail(`expected ${what} to fail, but it returned ${JSON.stringify(r)?.slice(0, 300)}`);
  } catch (e) {
    if ((e as Error)?.name === 'AssertionError') throw e;
    return e;
  }
}

/** The Status a client would see for `e`. */
export function statusOf(e: unknown): StatusError {
  return toStatusError(e);
}

function describeErr(e: unknown): string {
  if (isStorageError(e)) return `StorageError(${e.code}): ${e.message}`;
  if (e instanceof StatusError) return `StatusError(${e.code} ${e.reason}): ${e.message}`;
  return String((e as Error)?.stack ?? e);
}

export function expectStorageError(e: unknown, code: StorageErrorCode, messageIncludes?: string): void {
  expect(isStorageError(e, code), `expected StorageError ${code}, got ${describeErr(e)}`).toBe(true);
  if (messageIncludes !== undefined) expect((e as Error).message).toContain(messageIncludes);
}

/** Either StorageError TooLargeResourceVersion or a 504 whose cause is ResourceVersionTooLarge. */
export function expectTooLarge(e: unknown): void {
  const ok = isStorageError(e, 'TooLargeResourceVersion') || isTooLargeStatus(e);
  expect(ok, `expected a too-large-resource-version error, got ${describeErr(e)}`).toBe(true);
  const st = statusOf(e);
  expect(st.code).toBe(504);
  expect(st.message).toMatch(/Too large resource version/);
}

function isTooLargeStatus(e: unknown): boolean {
  return e instanceof StatusError && e.code === 504 && !!e.status.details?.causes?.some((c) => c.reason === 'ResourceVersionTooLarge');
}

/** A 410 Expired (StorageError Expired or StatusError), optionally with the exact message. */
export function expectExpired(e: unknown, message?: string): StatusError {
  const ok = isStorageError(e, 'Expired') || (e instanceof StatusError && e.code === 410);
  expect(ok, `expected 410 Expired, got ${describeErr(e)}`).toBe(true);
  const st = statusOf(e);
  expect(st.code).toBe(410);
  expect(st.reason).toBe('Expired');
  if (message !== undefined) expect(st.status.message).toBe(message);
  return st;
}

/** A 400 BadRequest, optionally with a message fragment. */
export function expectBadRequest(e: unknown, messageIncludes?: string | RegExp): void {
  const st = statusOf(e);
  expect(st.code, `expected 400, got ${describeErr(e)}`).toBe(400);
  if (typeof messageIncludes === 'string') expect(st.message).toContain(messageIncludes);
  else if (messageIncludes) expect(st.message).toMatch(messageIncludes);
}

/** Decodes a continue token under the listed `dir` and returns its raw JSON fields too. */
export function decodeToken(token: string, dir: string): { fromKey: string; rv: number; raw: Record<string, unknown> } {
  const raw = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Record<string, unknown>;
  const d = decodeContinue(token, `${dir}/`);
  return { ...d, raw };
}

/** True when the object of a BOOKMARK has nothing but metadata.resourceVersion (and, optionally, annotations). */
export function expectBookmarkShape(ev: WatchEvent, allowAnnotations = false): void {
  expect(ev.type).toBe('BOOKMARK');
  const o = ev.object as KubeObject;
  for (const k of Object.keys(o)) expect(['apiVersion', 'kind', 'metadata'], `unexpected bookmark field ${k}`).toContain(k);
  const metaKeys = Object.keys(o.metadata ?? {}).sort();
  expect(metaKeys).toEqual(allowAnnotations ? ['annotations', 'resourceVersion'] : ['resourceVersion']);
}

/**
 * Reads a watch with timeouts. One `next()` of the underlying iterator is kept pending across timeouts (an
 * iterator call cannot be cancelled); the first one starts at construction so lazily-started watches register
 * immediately.
 */
export class EventReader {
  readonly watch: Watch;
  readonly #it: AsyncIterator<WatchEvent>;
  readonly #timeoutMs: number;
  readonly #dropBookmarks: boolean;
  #pending: Promise<IteratorResult<WatchEvent>> | undefined;
  #done = false;
  /** Every event read so far (including dropped bookmarks). */
  readonly seen: WatchEvent[] = [];

  constructor(watch: Watch, timeoutMs: number, dropBookmarks: boolean) {
    this.watch = watch;
    this.#it = watch[Symbol.asyncIterator]();
    this.#timeoutMs = timeoutMs;
    this.#dropBookmarks = dropBookmarks;
    this.#prime();
  }

  #prime(): void {
    if (!this.#pending && !this.#done) {
      this.#pending = this.#it.next();
      // An unobserved rejection must not crash the run; it is re-raised by raw().
      this.#pending.catch(() => {});
    }
  }

  get done(): boolean {
    return this.#done;
  }

  /** The next raw result, or TIMEOUT. Throws what the iterator throws. */
  async raw(timeoutMs = this.#timeoutMs): Promise<IteratorResult<WatchEvent> | Timeout> {
    if (this.#done) return { done: true, value: undefined };
    this.#prime();
    const p = this.#pending as Promise<IteratorResult<WatchEvent>>;
    const r = await Promise.race([p, delay(timeoutMs)]);
    if (r === TIMEOUT) return TIMEOUT;
    this.#pending = undefined;
    if (r.done) this.#done = true;
    else {
      this.seen.push(r.value);
      this.#prime();
    }
    return r;
  }

  /** The next event (bookmarks skipped when this reader drops them). Fails on timeout or end of stream. */
  async next(what = 'a watch event'): Promise<WatchEvent> {
    for (;;) {
      const r = await this.raw();
      if (r === TIMEOUT) expect.fail(`timed out after ${this.#timeoutMs} ms waiting for ${what}; seen: ${summarize(this.seen)}`);
      if (r.done) expect.fail(`watch ended while waiting for ${what}; seen: ${summarize(this.seen)}`);
      if (this.#dropBookmarks && r.value.type === 'BOOKMARK') continue;
      return r.value;
    }
  }

  /** The next event within `ms` (bookmarks skipped when this reader drops them), or undefined on timeout. Fails if the stream ends. */
  async nextWithin(ms: number): Promise<WatchEvent | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const r = await this.raw(Math.max(1, deadline - Date.now()));
      if (r === TIMEOUT) return undefined;
      if (r.done) expect.fail(`watch ended unexpectedly; seen: ${summarize(this.seen)}`);
      if (this.#dropBookmarks && r.value.type === 'BOOKMARK') continue;
      return r.value;
    }
  }

  /** The next `n` events. */
  async take(n: number, what = 'watch events'): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    while (out.length < n) out.push(await this.next(`${what} (${out.length + 1} of ${n})`));
    return out;
  }

  /** Events up to and including the first one `pred` accepts. */
  async until(pred: (e: WatchEvent) => boolean, what = 'the awaited event'): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (;;) {
      const e = await this.next(what);
      out.push(e);
      if (pred(e)) return out;
    }
  }

  /** Events up to and including the one for the object named `name`. */
  untilName(name: string): Promise<WatchEvent[]> {
    return this.until((e) => e.type !== 'ERROR' && e.type !== 'BOOKMARK' && e.object.metadata?.name === name, `an event for "${name}"`);
  }

  /** Waits for the stream to end; returns the events (bookmarks dropped as configured) seen before the end. */
  async end(what = 'the end of the watch'): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (;;) {
      const r = await this.raw();
      if (r === TIMEOUT) expect.fail(`timed out after ${this.#timeoutMs} ms waiting for ${what}; seen: ${summarize(this.seen)}`);
      if (r.done) return out;
      if (this.#dropBookmarks && r.value.type === 'BOOKMARK') continue;
      out.push(r.value);
    }
  }

  stop(): void {
    this.watch.stop();
  }
}

export function summarize(events: readonly WatchEvent[]): string {
  const s = events.map((e) =>
    e.type === 'ERROR'
      ? `ERROR(${(e.object as Status).code} ${(e.object as Status).message})`
      : `${e.type}(${e.object.metadata?.name ?? ''}@${e.object.metadata?.resourceVersion ?? ''})`,
  );
  return s.length > 20 ? `[${s.slice(0, 20).join(', ')}, … ${s.length - 20} more]` : `[${s.join(', ')}]`;
}

/** Short description of events for equality assertions: type, name, resourceVersion. */
export function brief(events: readonly WatchEvent[]): string[] {
  return events.map((e) =>
    e.type === 'ERROR'
      ? `ERROR ${(e.object as Status).code}`
      : `${e.type} ${e.object.metadata?.name ?? ''} ${e.object.metadata?.resourceVersion ?? ''}`,
  );
}

export interface ObjOptions {
  ns?: string;
  labels?: Record<string, string>;
  spec?: Record<string, unknown>;
  uid?: string;
}

let nsCounter = 0;

/**
 * Per-test state and helpers. The suite uses keys `${resourcePrefix}/${ns}/${name}`, with `ns` unique per test,
 * so backends that keep data between factory calls still see an isolated subtree.
 */
export class SuiteContext {
  readonly opts: ResolvedOptions;
  #h: ConformanceHarness | undefined;
  #readers: EventReader[] = [];
  ns = '';

  constructor(opts: ResolvedOptions) {
    this.opts = opts;
  }

  attach(h: ConformanceHarness): void {
    this.#h = h;
    nsCounter += 1;
    this.ns = `t${nsCounter}-${Math.random().toString(36).slice(2, 8)}`;
  }

  async detach(): Promise<void> {
    for (const r of this.#readers) {
      try {
        r.stop();
      } catch {
        // already stopped
      }
    }
    this.#readers = [];
    const h = this.#h;
    this.#h = undefined;
    await h?.close();
  }

  get h(): ConformanceHarness {
    if (!this.#h) throw new Error('no harness: the factory failed or the test runs outside the suite');
    return this.#h;
  }
  get s(): Storage {
    return this.h.storage;
  }
  /** The resource prefix without a trailing slash. */
  get p(): string {
    return this.h.resourcePrefix.replace(/\/+$/, '');
  }
  /** The per-test directory, `${p}/${ns}` (or another namespace's). */
  dir(ns = this.ns): string {
    return `${this.p}/${ns}`;
  }
  key(name: string, ns = this.ns): string {
    return `${this.dir(ns)}/${name}`;
  }
  /** Another namespace name unique to this test. */
  otherNs(suffix = 'other'): string {
    return `${this.ns}-${suffix}`;
  }

  obj(name: string, o: ObjOptions = {}): KubeObject {
    const metadata: KubeObject['metadata'] = { name, namespace: o.ns ?? this.ns };
    if (o.uid) metadata.uid = o.uid;
    if (o.labels) metadata.labels = { ...o.labels };
    return { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata, spec: { size: 1, ...(o.spec ?? {}) } };
  }

  /** Creates `name` (in this test's namespace unless o.ns says otherwise). */
  create(name: string, o: ObjOptions = {}): Promise<KubeObject> {
    return this.s.create(this.key(name, o.ns), this.obj(name, o));
  }

  /** Creates several objects one after another; returns them in order. */
  async createAll(names: readonly string[], o: ObjOptions = {}): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    for (const n of names) out.push(await this.create(n, o));
    return out;
  }

  /** guaranteedUpdate that applies `mutate` to a copy of the current object. */
  update(name: string, mutate: (o: KubeObject) => void, ns = this.ns): Promise<KubeObject> {
    return this.s.guaranteedUpdate(this.key(name, ns), (cur) => {
      if (!cur) throw new Error(`update of missing ${name}`);
      const next = structuredClone(cur);
      mutate(next);
      return next;
    });
  }

  /** Sets spec.size (a visible change). */
  resize(name: string, size: number, ns = this.ns): Promise<KubeObject> {
    return this.update(
      name,
      (o) => {
        (o.spec as Record<string, unknown>).size = size;
      },
      ns,
    );
  }

  /** Sets labels. */
  relabel(name: string, labels: Record<string, string>, ns = this.ns): Promise<KubeObject> {
    return this.update(
      name,
      (o) => {
        o.metadata.labels = { ...labels };
      },
      ns,
    );
  }

  remove(name: string, ns = this.ns): Promise<KubeObject> {
    return this.s.delete(this.key(name, ns));
  }

  async rev(): Promise<number> {
    const rv = await this.s.currentResourceVersion();
    expect(rv).toMatch(/^[0-9]+$/);
    return Number(rv);
  }

  /**
   * Starts a watch and wraps it in a reader that the suite stops after the test. BOOKMARKs are dropped when
   * the backend is a cache (it may send them on its own schedule) unless `keepBookmarks` is set.
   */
  watch(key: string, o: WatchOptions = {}, keepBookmarks = false): EventReader {
    const w = this.s.watch(key, o);
    const r = new EventReader(w, this.opts.eventTimeoutMs, this.opts.cache && !keepBookmarks);
    this.#readers.push(r);
    return r;
  }

  /**
   * How a watch fails to start: a synchronous throw, a rejected first read, or an ERROR event (returned as a
   * StatusError). Fails the test if the watch yields anything else first.
   */
  async watchFailure(key: string, o: WatchOptions = {}): Promise<unknown> {
    let r: EventReader;
    try {
      r = this.watch(key, o);
    } catch (e) {
      return e;
    }
    try {
      const first = await r.raw();
      if (first === TIMEOUT) expect.fail('watch neither failed nor produced an event');
      if (first.done) expect.fail('watch ended without an error');
      if (first.value.type !== 'ERROR') expect.fail(`watch started instead of failing: ${summarize([first.value])}`);
      return new StatusError(first.value.object as Status);
    } catch (e) {
      if ((e as Error)?.name === 'AssertionError') throw e;
      return e;
    } finally {
      r.stop();
    }
  }
}

/** Per-test timeout: long enough for a few event waits on slow backends. */
export function testTimeout(o: ResolvedOptions): number {
  return Math.max(20_000, o.eventTimeoutMs * 4 + o.progressIntervalMs * 4);
}

/** `it` with the suite's timeout. */
export function makeTest(o: ResolvedOptions): (name: string, fn: () => Promise<void>) => void {
  const timeout = testTimeout(o);
  return (name, fn) => it(name, fn, timeout);
}

export type Test = ReturnType<typeof makeTest>;
