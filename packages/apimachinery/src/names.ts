import { randomInt } from 'node:crypto';

/**
 * Name and label validation (k8s.io/apimachinery/pkg/util/validation, api/validation/generic.go) and the
 * generateName suffix generator (k8s.io/apiserver/pkg/storage/names). Every function returns Kubernetes'
 * own messages so clients see the same text as from kube-apiserver.
 */

const DNS1123_LABEL_MAX = 63;
const DNS1123_SUBDOMAIN_MAX = 253;
const QUALIFIED_NAME_MAX = 63;
const LABEL_VALUE_MAX = 63;

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);

const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** validation.MaxLenError. */
function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

/** validation.RegexError, including its "',  or '" spacing between examples. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** Go's len(): limits count UTF-8 bytes, not UTF-16 units. */
function byteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** An RFC 1123 label: lowercase alphanumerics and '-', at most 63 characters (namespace names, ...). */
export function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!DNS1123_LABEL_RE.test(v)) {
    // A valid subdomain that is not a valid label can only be failing on its dots.
    if (DNS1123_SUBDOMAIN_RE.test(v)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

/** An RFC 1123 subdomain: dot-separated labels, at most 253 characters (most object names). */
export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!DNS1123_SUBDOMAIN_RE.test(v)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** A qualified name (label and annotation keys): an optional DNS subdomain prefix and '/', then a name. */
export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) {
    name = v;
  } else if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    errs.push(
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
    return errs;
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME_RE.test(name))
    errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** A label value: empty, or up to 63 alphanumerics, '-', '_' and '.', alphanumeric at both ends. */
export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!LABEL_VALUE_RE.test(v)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/**
 * Makes a generateName prefix validatable as a name: a trailing '-' is fine there because a suffix follows.
 * Like Kubernetes, the dash and the character before it become a single 'a'.
 */
export function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith('-')) {
    // Go slices bytes: cutting into a multi-byte character leaves invalid UTF-8, which no name regex accepts.
    const before = name.charCodeAt(name.length - 2);
    return `${name.slice(0, -2)}${before < 0x80 ? '' : '\ufffd'}a`;
  }
  return name;
}

/** ValidateNameFunc for resources whose names are DNS subdomains; `prefix` is true for generateName. */
export function nameIsDNSSubdomain(name: string, prefix: boolean): string[] {
  return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
}

/** ValidateNameFunc for resources whose names are DNS labels (e.g. namespaces). */
export function nameIsDNSLabel(name: string, prefix: boolean): string[] {
  return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
}

/**
 * path.IsValidPathSegmentName (k8s.io/apimachinery/pkg/api/validation/path): a name that can be one segment of a
 * URL path and of a storage key. "." and ".." would step out of the key's directory; "/" and "%" would not survive a
 * round trip through a URL path.
 */
export function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errs: string[] = [];
  if (name.includes('/')) errs.push(`may not contain '/'`);
  if (name.includes('%')) errs.push(`may not contain '%'`);
  return errs;
}

/** utilrand's alphabet: no vowels (no accidental words) and no look-alikes (0/o, 1/l, 3/e). */
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const SUFFIX_LENGTH = 5;
const MAX_NAME_LENGTH = 63;
const MAX_GENERATED_BASE_LENGTH = MAX_NAME_LENGTH - SUFFIX_LENGTH;

/** Five random characters for generateName. */
export function generateNameSuffix(): string {
  let s = '';
  for (let i = 0; i < SUFFIX_LENGTH; i++) s += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return s;
}

/** Truncates to at most `max` UTF-8 bytes without splitting a character. */
function truncateBytes(s: string, max: number): string {
  if (s.length <= max && byteLength(s) <= max) return s;
  let n = 0;
  let i = 0;
  for (const ch of s) {
    const b = byteLength(ch);
    if (n + b > max) break;
    n += b;
    i += ch.length;
  }
  return s.slice(0, i);
}

export interface NameGenerator {
  /** A name from `base` plus a random suffix, never longer than 63 characters when base is ASCII. */
  generateName(base: string): string;
}

/** names.SimpleNameGenerator: the base cut to 58 characters, then five random characters. */
export const simpleNameGenerator: NameGenerator = {
  generateName(base: string): string {
    return truncateBytes(base, MAX_GENERATED_BASE_LENGTH) + generateNameSuffix();
  },
};
