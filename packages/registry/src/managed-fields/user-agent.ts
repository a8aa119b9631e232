/** kube's FieldManagerMaxLength: fieldManager values (and names taken from a User-Agent) are at most this many bytes. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** Go's unicode.IsPrint, near enough: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Printable ASCII only: all of it printable, one byte per character. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Whether one character (a code point) is printable: what a fieldManager may hold (ValidateFieldManager). */
export const isPrintable = (ch: string): boolean => PRINTABLE.test(ch);

/**
 * The manager name of a write without `fieldManager` (kube's prefixFromUserAgent): the User-Agent up to its first
 * "/", unprintable characters dropped, cut at 128 UTF-8 bytes without splitting a character. "kubectl/v1.31.0 (…)"
 * → "kubectl".
 */
export function prefixFromUserAgent(userAgent: string): string {
  const slash = userAgent.indexOf('/');
  const head = slash < 0 ? userAgent : userAgent.slice(0, slash);
  // The usual agent ("kubectl/v1.31.0 …", "node-fetch/1.0"): printable ASCII, short — nothing to drop or cut.
  if (head.length <= FIELD_MANAGER_MAX_LENGTH && PRINTABLE_ASCII.test(head)) return head;
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (!isPrintable(ch)) continue;
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/** The request's fieldManager when it names one, else the User-Agent's prefix (kube's managerOrUserAgent). */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  return fieldManager ? fieldManager : prefixFromUserAgent(userAgent ?? '');
}
