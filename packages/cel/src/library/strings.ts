import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost } from '../cost.ts';
import { kubeName } from './overrides.ts';

/**
 * The cel-go ext strings functions kube enables (ext.Strings): charAt, indexOf, lastIndexOf, lowerAscii,
 * upperAscii, replace, reverse, substring, with code-point indices and cel-go's error texts. split, trim and
 * join are the CEL library's own. (indexOf, lastIndexOf, substring, lowerAscii and upperAscii are built into
 * the library with other semantics; these are registered under other names, see overrides.ts.)
 */
export function registerStrings(env: Environment): void {
  env.registerFunction('string.charAt(int): string', (s: string, index: bigint) => {
    const chars = codePoints(s);
    if (index < 0n || index > BigInt(chars.length)) throw new Error(`index out of range: ${index}`);
    return chars[Number(index)] ?? '';
  });
  env.registerFunction('string.replace(string, string): string', (s: string, from: string, to: string) => replace(s, from, to, -1n));
  env.registerFunction('string.replace(string, string, int): string', replace);
  env.registerFunction(`string.${kubeName('indexOf')}(string): int`, (s: string, sub: string) => indexOf(s, sub, 0n));
  env.registerFunction(`string.${kubeName('indexOf')}(string, int): int`, indexOf);
  env.registerFunction(`string.${kubeName('lastIndexOf')}(string): int`, (s: string, sub: string) => lastIndexOf(s, sub));
  env.registerFunction(`string.${kubeName('lastIndexOf')}(string, int): int`, lastIndexOf);
  env.registerFunction(`string.${kubeName('substring')}(int): string`, (s: string, start: bigint) => {
    const chars = codePoints(s);
    if (start < 0n || start > BigInt(chars.length)) throw new Error(`index out of range: ${start}`);
    return chars.slice(Number(start)).join('');
  });
  env.registerFunction(`string.${kubeName('substring')}(int, int): string`, (s: string, start: bigint, end: bigint) => {
    const chars = codePoints(s);
    if (start > end) throw new Error(`invalid substring range. start: ${start}, end: ${end}`);
    if (start < 0n || start > BigInt(chars.length)) throw new Error(`index out of range: ${start}`);
    if (end < 0n || end > BigInt(chars.length)) throw new Error(`index out of range: ${end}`);
    return chars.slice(Number(start), Number(end)).join('');
  });
  env.registerFunction(`string.${kubeName('lowerAscii')}(): string`, (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase()));
  env.registerFunction(`string.${kubeName('upperAscii')}(): string`, (s: string) => s.replace(/[a-z]+/g, (m) => m.toUpperCase()));
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

/** cel-go's indexOf (ext/strings.go): code points; an empty substring is found at the offset. */
function indexOf(s: string, sub: string, offset: bigint): bigint {
  if (sub === '') return offset;
  const chars = codePoints(s);
  if (offset < 0n) throw new Error(`index out of range: ${offset}`);
  if (offset >= BigInt(chars.length)) return -1n;
  const subChars = [...sub];
  for (let i = Number(offset); i < chars.length - (subChars.length - 1); i++) {
    if (subChars.every((c, j) => chars[i + j] === c)) return BigInt(i);
  }
  return -1n;
}

/** cel-go's lastIndexOf: without an offset it searches from the last code point ("" has none: out of range). */
function lastIndexOf(s: string, sub: string, offset?: bigint): bigint {
  const chars = codePoints(s);
  if (offset === undefined) {
    if (sub === '') return BigInt(chars.length);
    offset = BigInt(chars.length - 1);
  }
  if (sub === '') return offset;
  if (offset < 0n) throw new Error(`index out of range: ${offset}`);
  if (offset >= BigInt(chars.length)) return -1n;
  const subChars = [...sub];
  for (let i = Math.min(Number(offset), chars.length - subChars.length); i >= 0; i--) {
    if (subChars.every((c, j) => chars[i + j] === c)) return BigInt(i);
  }
  return -1n;
}
