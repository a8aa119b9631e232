import { type KubeObject, type Status, stringifyJson, type WatchEvent } from '@kapi/apimachinery';

/**
 * Serialize once: the JSON bytes of an object version and of a watch event line, memoized on the (frozen) values
 * themselves, so every watcher and every list that sends the same object shares one encoding.
 */

/** Told the size of every object encoding actually performed (memo misses), e.g. to prove one encode per event. */
export type EncodeListener = (bytes: number) => void;

const utf8 = new TextEncoder();
const objectBytes = new WeakMap<object, Uint8Array>();
const eventBytes = new WeakMap<object, Uint8Array>();
const listeners = new Set<EncodeListener>();

const TYPES: readonly WatchEvent['type'][] = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'];
const HEADS = new Map(TYPES.map((t) => [t, utf8.encode(`{"type":"${t}","object":`)]));
const TAIL = utf8.encode('}\n');

/**
 * The JSON of `obj` as UTF-8 bytes. Frozen objects (everything a Cacher hands out) are encoded once and the same
 * bytes are returned on every call; a mutable object is encoded every time, since it may have changed.
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
  const bytes = utf8.encode(stringifyJson(obj));
  if (frozen) objectBytes.set(obj, bytes);
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
  if (frozen) eventBytes.set(ev, line);
  return line;
}

/** Calls `listener` after every object encoding performed from now on; returns a function that unsubscribes it. */
export function onEncode(listener: EncodeListener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
