import { type KubeObject, type Status, stringifyJson, type WatchEvent } from '@kapi/apimachinery';
import { committedEncodingOf } from '@kapi/storage';

/**
 * Serialize once: the JSON bytes of an object version and of a watch event line, memoized on the (frozen) values
 * themselves, so every watcher and every list that sends the same object shares one encoding. The memo is bounded by
 * bytes (`setEncodingMemoLimit`, default 16 MiB), oldest encodings forgotten first: bytes kept for every cached object
 * would double a cache's memory, while the sharing that matters — one event to many watchers, the same objects in
 * lists served close together — happens within a short time of the encoding.
 */

/** Told the size of every object encoding actually performed (memo misses), e.g. to prove one encode per event. */
export type EncodeListener = (bytes: number) => void;

const utf8 = new TextEncoder();
const objectBytes = new WeakMap<object, Uint8Array>();
const eventBytes = new WeakMap<object, Uint8Array>();
const listeners = new Set<EncodeListener>();

/** One memoized encoding, oldest first: the value it belongs to (weakly: the memo keeps nothing alive) and its size. */
interface Remembered {
  ref: WeakRef<object>;
  memo: WeakMap<object, Uint8Array>;
  bytes: number;
}
const DEFAULT_LIMIT = 16 * 2 ** 20;
let limit = DEFAULT_LIMIT;
let held = 0;
let order: Remembered[] = [];
let head = 0;

function remember(memo: WeakMap<object, Uint8Array>, value: object, bytes: Uint8Array): void {
  if (limit <= 0) return;
  memo.set(value, bytes);
  order.push({ ref: new WeakRef(value), memo, bytes: bytes.length });
  held += bytes.length;
  forgetOverLimit();
}

/** Forgets the oldest encodings until the memo is within its limit (a value that died meanwhile only uncounts). */
function forgetOverLimit(): void {
  while (held > limit && head < order.length) {
    const r = order[head] as Remembered;
    order[head++] = undefined as unknown as Remembered;
    held -= r.bytes;
    const v = r.ref.deref();
    if (v !== undefined) r.memo.delete(v);
  }
  // Drop the consumed front now and then, so the queue's array does not grow without end.
  if (head > 1024 && head * 2 > order.length) {
    order = order.slice(head);
    head = 0;
  }
}

/**
 * Bounds the bytes the encoding memo keeps (default 16 MiB; 0 memoizes nothing). Encodings past the limit are
 * forgotten oldest first and made again if asked for.
 */
export function setEncodingMemoLimit(bytes: number = DEFAULT_LIMIT): void {
  limit = Math.max(0, bytes);
  forgetOverLimit();
}

/** Bytes of encodings the memo holds (the ones whose value is still alive, and those not yet found dead). */
export function encodingMemoBytes(): number {
  return held;
}

const TYPES: readonly WatchEvent['type'][] = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'];
const HEADS = new Map(TYPES.map((t) => [t, utf8.encode(`{"type":"${t}","object":`)]));
const TAIL = utf8.encode('}\n');

/**
 * The JSON of `obj` as UTF-8 bytes. Frozen objects (everything a Cacher hands out) are encoded once and the same
 * bytes are returned on every call while the memo holds them (see `setEncodingMemoLimit`); a mutable object is encoded every time, since it may have changed.
 * The returned bytes are shared: never modify them.
 */
export function encodedObject(obj: KubeObject | Status): Uint8Array {
  const frozen = Object.isFrozen(obj);
  if (frozen) {
    const hit = objectBytes.get(obj);
    if (hit) return hit;
  }
  // Not Buffer.from: its pooled slabs would be pinned by these long-lived bytes, garbage neighbours and all.
  // stringifyJson: JSON.stringify's recursion gives up on accepted objects nested deeper than about 4,500 levels.
  // A backend's fresh commit comes with the text its copy was parsed from: encoded once, not again here.
  const bytes = utf8.encode((frozen && committedEncodingOf(obj)) || stringifyJson(obj));
  if (frozen) remember(objectBytes, obj, bytes);
  for (const l of listeners) l(bytes.length);
  return bytes;
}

/**
 * One line of a JSON watch stream for `ev`: `{"type":"…","object":…}` and a newline, as kube-apiserver writes it.
 * The object's bytes come from `encodedObject` (made once per object version, whatever the event type); the line is
 * memoized on a frozen event, so watchers that receive the same event object share the same bytes. Never modify them.
 */
export function encodedEvent(ev: WatchEvent): Uint8Array {
  const frozen = Object.isFrozen(ev);
  if (frozen) {
    const hit = eventBytes.get(ev);
    if (hit) return hit;
  }
  const head = HEADS.get(ev.type) ?? utf8.encode(`{"type":${JSON.stringify(ev.type)},"object":`);
  const body = encodedObject(ev.object);
  const line = new Uint8Array(head.length + body.length + TAIL.length);
  line.set(head, 0);
  line.set(body, head.length);
  line.set(TAIL, head.length + body.length);
  if (frozen) remember(eventBytes, ev, line);
  return line;
}

/** Calls `listener` after every object encoding performed from now on; returns a function that unsubscribes it. */
export function onEncode(listener: EncodeListener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
