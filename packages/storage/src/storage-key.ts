/**
 * The storage key of every object a backend hands out, kept beside the object rather than in it (objects are plain
 * JSON values: a key field would reach the wire). Layers above a backend — a watch cache above all — need each listed
 * or watched object's key, and keys are not always derivable from the object (`<prefix>/<ns>/a/child`).
 */

/** Shared through globalThis, so two copies of this package in one process (e.g. a bundled one) still agree. */
const KEYS_SYMBOL = Symbol.for('kapi.storageKey');

type KeyHolder = { [KEYS_SYMBOL]?: WeakMap<object, string> };

function sharedKeys(): WeakMap<object, string> {
  const holder = globalThis as KeyHolder;
  holder[KEYS_SYMBOL] ??= new WeakMap();
  return holder[KEYS_SYMBOL];
}

const keys = sharedKeys();

/**
 * The key as a property of the object itself, when it can still take one: non-enumerable, so JSON, spreads and key
 * walks never see or copy it. Cheaper than a weak table entry per stored version, in time and in bytes (a weak table
 * keeps ~40 bytes an entry and costs the garbage collector a pass over it); the table stays for frozen objects.
 */
const KEY_PROPERTY = Symbol.for('kapi.storageKey.property');

/** Records that `obj` is stored at `key` (the normalized key). Frozen objects are fine: nothing is written to them. */
export function recordStorageKey(obj: object, key: string): void {
  if (Object.isExtensible(obj)) Object.defineProperty(obj, KEY_PROPERTY, { value: key, writable: true, configurable: true });
  else keys.set(obj, key);
}

/** The storage key a backend recorded for `obj`, or undefined for an object no backend handed out. */
export function storageKeyOf(obj: object): string | undefined {
  return Object.hasOwn(obj, KEY_PROPERTY) ? ((obj as Record<symbol, unknown>)[KEY_PROPERTY] as string) : keys.get(obj);
}
