/**
 * Base64 as Go's encoding/json decodes a []byte field (base64.StdEncoding.Decode): the standard alphabet, padding
 * required, CR and LF skipped. Kubernetes stores Secret data and ConfigMap binaryData as []byte, so a value is valid
 * exactly when Go decodes it; the error names the input byte where Go stops.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Map([...ALPHABET].map((c, i) => [c, i]));

/** Result of decoding: the decoded length, or Go's CorruptInputError offset. */
export type Base64Result = { ok: true; length: number } | { ok: false; offset: number };

/** Go's CorruptInputError text. */
export function illegalBase64Message(offset: number): string {
  return `illegal base64 data at input byte ${offset}`;
}

const isNewline = (c: string | undefined): boolean => c === '\n' || c === '\r';

/** Follows Go's decodeQuantum: quanta of four characters, "=" only as final padding, nothing after it. */
export function decodeGoBase64(src: string): Base64Result {
  let si = 0;
  let length = 0;
  for (;;) {
    let j = 0;
    let done = false;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return { ok: true, length };
        return { ok: false, offset: si - j };
      }
      const c = src[si] as string;
      si++;
      if (DECODE.has(c)) continue;
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== '=' || j < 2) return { ok: false, offset: si - 1 };
      if (j === 2) {
        // "==" expected; the first one is consumed.
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return { ok: false, offset: src.length };
        if (src[si] !== '=') return { ok: false, offset: si - 1 };
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      if (si < src.length) return { ok: false, offset: si };
      done = true;
      break;
    }
    // j characters carry j-1 bytes in a padded quantum, 3 in a full one.
    length += done ? j - 1 : 3;
    if (done) return { ok: true, length };
  }
}
