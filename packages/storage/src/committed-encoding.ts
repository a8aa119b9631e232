/**
 * The JSON text a backend made of an object it just committed, handed to the layers above so the same object is not
 * encoded twice: a create over HTTP answers with the object the storage wrote, and the watch cache's encoder
 * (`encodedObject`) would otherwise stringify again what the storage's copy was parsed from. Only the latest few
 * commits are kept — the response is written right after the write — so no long-lived text is held per object.
 */

/** How many recent commits keep their text (a few per write in flight, far fewer than objects stored). */
const RECENT = 64;

const texts = new WeakMap<object, string>();
const ring: (object | undefined)[] = new Array(RECENT);
let next = 0;

/** Records that `text` is exactly the JSON (JSON.stringify's) of `obj`, a frozen object a backend committed. */
export function recordCommittedEncoding(obj: object, text: string): void {
  const evicted = ring[next];
  if (evicted !== undefined) texts.delete(evicted);
  ring[next] = obj;
  next = (next + 1) % RECENT;
  texts.set(obj, text);
}

/** The JSON text of `obj` if a backend committed it recently, else undefined (encode it yourself). */
export function committedEncodingOf(obj: object): string | undefined {
  return texts.get(obj);
}
