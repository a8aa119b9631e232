import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost } from '../cost.ts';

/**
 * The cel-go ext strings functions kube enables (ext.Strings) that the CEL library does not have built in:
 * charAt, replace, reverse. Indices count code points, as cel-go does. (indexOf, lastIndexOf, lowerAscii,
 * upperAscii, split, substring, trim and join are the library's own; the README lists where they differ.)
 */
export function registerStrings(env: Environment): void {
  env.registerFunction('string.charAt(int): string', (s: string, index: bigint) => {
    const chars = codePoints(s);
    if (index < 0n || index > BigInt(chars.length)) throw new Error(`index out of range: ${index}`);
    return chars[Number(index)] ?? '';
  });
  env.registerFunction('string.replace(string, string): string', (s: string, from: string, to: string) => replace(s, from, to, -1n));
  env.registerFunction('string.replace(string, string, int): string', replace);
  env.registerFunction('string.reverse(): string', (s: string) => {
    const chars = codePoints(s);
    return chars.reverse().join('');
  });
}

function codePoints(s: string): string[] {
  chargeCost(Math.ceil(s.length * 0.1));
  return [...s];
}

/** Go's strings.Replace: n < 0 replaces all; an empty `from` inserts `to` around every code point. */
function replace(s: string, from: string, to: string, n: bigint): string {
  chargeCost(Math.ceil(s.length * 0.1));
  let limit = n < 0n ? Number.POSITIVE_INFINITY : Number(n);
  if (limit === 0 || from === to) return s;
  if (from === '') {
    let out = '';
    for (const ch of s) {
      if (limit > 0) {
        out += to;
        limit--;
      }
      out += ch;
    }
    return limit > 0 ? out + to : out;
  }
  let out = '';
  let start = 0;
  while (limit > 0) {
    const at = s.indexOf(from, start);
    if (at < 0) break;
    out += s.slice(start, at) + to;
    start = at + from.length;
    limit--;
  }
  return out + s.slice(start);
}
