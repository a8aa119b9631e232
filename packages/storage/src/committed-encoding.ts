/**
 * What a backend knows of an object it just committed, handed to the layers above so the same object is not measured
 * or encoded twice: its JSON size (the watch cache's history weighs each event by it) and, when the backend's copy
 * was parsed from it whole, its JSON text (a create over HTTP answers with the object the storage wrote, which the
 * watch cache's encoder, `encodedObject`, would otherwise stringify again). Only the latest few commits are kept —
 * the history and the response take them right after the write — so nothing long-lived is held per object.
 */

/** How many recent commits are kept (a few per write in flight, far fewer than objects stored). */
const RECENT = 64;

interface Committed {
  text: string | undefined;
  bytes: number;
}

const committed = new WeakMap<object, Committed>();
const ring: (object | undefined)[] = new Array(RECENT);
let next = 0;

/**
 * Records, for `obj` (a frozen object a backend committed), `bytes`, its size as JSON as approximateJsonSize counts
 * it, and `text` when it is exactly the JSON of `obj` (JSON.stringify's).
 */
export function recordCommitted(obj: object, text: string | undefined, bytes: number): void {
  const evicted = ring[next];
  if (evicted !== undefined) committed.delete(evicted);
  ring[next] = obj;
  next = (next + 1) % RECENT;
  committed.set(obj, { text, bytes });
}

/** The JSON text of `obj` if a backend committed it recently with its text, else undefined (encode it yourself). */
export function committedEncodingOf(obj: object): string | undefined {
  return committed.get(obj)?.text;
}

/** The JSON size of `obj` if a backend committed it recently, else undefined (measure it yourself). */
export function committedSizeOf(obj: object): number | undefined {
  return committed.get(obj)?.bytes;
}
