/**
 * About how many bytes `value` takes as JSON, without encoding it: string lengths (UTF-16 units, not UTF-8 bytes) and
 * digits of numbers plus the punctuation around them. Close enough to weigh what a history or a cache holds by size, at a
 * fraction of an encode's cost; exact for ASCII strings without escapes.
 */
export function approximateJsonSize(value: unknown): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') size += v.length + 2;
    else if (typeof v === 'number') size += String(v).length;
    else if (typeof v === 'boolean') size += v ? 4 : 5;
    else if (v === null) size += 4;
    else if (Array.isArray(v)) {
      size += 2 + Math.max(0, v.length - 1);
      for (const x of v) stack.push(x);
    } else if (typeof v === 'object') {
      const keys = Object.keys(v);
      size += 2 + Math.max(0, keys.length - 1);
      for (const k of keys) {
        size += k.length + 3;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return size;
}
