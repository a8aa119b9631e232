import { isIPv6 } from 'node:net';

/**
 * The string formats kube-apiserver checks on custom resources: kube-openapi's strfmt.Default registry, limited to
 * the formats apiextensions-apiserver supports (validation/formats.go); other formats are dropped from the schema
 * (StripUnsupportedFormatsPostProcess) and not checked. Names compare with dashes removed ("date-time" is
 * "datetime"), as strfmt normalizes them.
 */

const normalize = (name: string) => name.replaceAll('-', '');

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const HEXCOLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGBCOLOR =
  /^rgb\([ \t\n\f\r]*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])[ \t\n\f\r]*,[ \t\n\f\r]*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])[ \t\n\f\r]*,[ \t\n\f\r]*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])[ \t\n\f\r]*\)$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const SHORT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LONG_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DATE_TIME_TAIL = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const MAC_COLON = /^[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\1[0-9a-fA-F]{2})*$/;
const MAC_DOT = /^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4})*$/;

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

function isHostname(s: string): boolean {
  return HOSTNAME.test(s) && byteLength(s) <= 255 && s.split('.').every((p) => byteLength(p) <= 63);
}

/** time.Parse("2006-01-02"): four-digit year, month 01-12, a day that exists in that month. */
export function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1] as number;
  return d <= days;
}

/** strfmt.IsDateTime: a date, a `t` (any case), then hh:mm:ss[.frac] and z or ±hh:mm. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0] as string)) return false;
  const m = DATE_TIME_TAIL.exec(parts[1] as string);
  if (!m) return false;
  return (m[1] as string) <= '23' && (m[2] as string) <= '59' && (m[3] as string) <= '59';
}

const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;
const TIME_UNITS = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

/** strfmt.ParseDuration: Go's time.ParseDuration, else any `<digits> <unit>` pair with a known unit word. */
function isDuration(s: string): boolean {
  if (s === '0' || GO_DURATION.test(s)) return true;
  for (const m of s.matchAll(/((\d+)\s*([A-Za-zµ]+))/g)) {
    const unit = (m[3] as string).trim().toLowerCase();
    for (const variants of TIME_UNITS) {
      const last = variants.length - 1;
      if (variants.some((v, i) => (i === last && unit.startsWith(v)) || v === unit)) return true;
    }
  }
  return false;
}

/** net.ParseIP for IPv4 in the sloppy form Kubernetes accepts (leading zeros allowed). */
function isIPv4Sloppy(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

function isIPv6Go(s: string): boolean {
  // Go's ParseIP takes no zone; an embedded IPv4 tail may have leading zeros in the sloppy form.
  if (s.includes('%')) return false;
  const tail = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) return isIPv4Sloppy(tail[2] as string) && isIPv6(`${tail[1]}0.0.0.0`);
  return isIPv6(s);
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const addr = s.slice(0, slash);
  const prefix = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix)) return false;
  if (isIPv4Sloppy(addr)) return Number(prefix) <= 32;
  return isIPv6Go(addr) && Number(prefix) <= 128;
}

/** net.ParseMAC: 6, 8 or 20 octets, colon- or dash-separated pairs or dot-separated quads. */
function isMAC(s: string): boolean {
  if (MAC_COLON.test(s)) return [6, 8, 20].includes((s.length + 1) / 3);
  if (MAC_DOT.test(s)) return [6, 8, 20].includes(((s.length + 1) / 5) * 2);
  return false;
}

function isISBN10(s: string): boolean {
  const d = s.replace(/[\s-]+/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(d[i]);
  sum += d[9] === 'X' ? 100 : 10 * Number(d[9]);
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const d = s.replace(/[\s-]+/g, '');
  if (!/^[0-9]{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(d[i]);
  return Number(d[12]) - ((10 - (sum % 10)) % 10) === 0;
}

function isCreditCard(s: string): boolean {
  const d = s.replace(/[^0-9]+/g, '');
  if (!CREDIT_CARD.test(d)) return false;
  let sum = 0;
  let double = false;
  for (let i = d.length - 1; i >= 0; i--) {
    let n = Number(d[i]);
    if (double) {
      n *= 2;
      sum += n >= 10 ? (n % 10) + 1 : n;
    } else sum += n;
    double = !double;
  }
  return sum % 10 === 0;
}

/** url.ParseRequestURI: an absolute path, or a URI with a scheme; no control characters. */
function isRequestURI(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return false;
  }
  if (s.startsWith('/')) return true;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s.exec(s);
  if (!scheme) return false;
  const rest = scheme[2] as string;
  // An opaque URI (mailto:x) parses.
  if (!rest.startsWith('/')) return true;
  if (rest.startsWith('//')) {
    const authority = rest.slice(2).split(/[/?#]/)[0] as string;
    const host = authority.slice(authority.lastIndexOf('@') + 1);
    if (host.startsWith('[')) return /^\[[0-9a-fA-F:.]+(%[^\]]*)?\](:\d*)?$/.test(host);
    return !/[ "<>\\^`{|}]/.test(host) && /^[^:]*(:\d*)?$/.test(host);
  }
  return true;
}

/** net/mail.ParseAddress, for the forms used in practice: `local@domain` or `Name <local@domain>`. */
function isEmail(s: string): boolean {
  const atext = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
  const dotAtom = `${atext}(?:\\.${atext})*`;
  const quoted = '"(?:[^"\\\\\\r\\n]|\\\\.)*"';
  const addr = `(?:${dotAtom}|${quoted})@(?:${dotAtom}|\\[[^\\]\\\\]*\\])`;
  const re = new RegExp(`^\\s*(?:${addr}|(?:[^<>@]*|${quoted})\\s*<${addr}>)\\s*$`, 'u');
  return re.test(s);
}

const VALIDATORS: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: isEmail,
  hostname: isHostname,
  ipv4: (s) => isIPv4Sloppy(s) || (s.includes('.') && isIPv6Go(s)),
  ipv6: (s) => s.includes(':') && isIPv6Go(s),
  cidr: isCIDR,
  mac: isMAC,
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && SSN.test(s),
  hexcolor: (s) => HEXCOLOR.test(s),
  rgbcolor: (s) => RGBCOLOR.test(s),
  byte: (s) => BASE64.test(s),
  password: () => true,
  date: isDate,
  datetime: isDateTime,
  duration: isDuration,
  k8sshortname: (s) => s.length <= 63 && SHORT_NAME.test(s),
  k8slongname: (s) => s.length <= 253 && LONG_NAME.test(s),
};

/** The formats apiextensions-apiserver keeps on a string schema (validation/formats.go, current version). */
const SUPPORTED_STRING_FORMATS = new Set([...Object.keys(VALIDATORS), 'quantity']);

/**
 * StripUnsupportedFormatsPostProcess: the format kube keeps for a schema node of this type, or '' when it drops
 * it. Integers keep int32/int64, numbers float/double, strings (and untyped nodes) the supported string formats.
 */
export function supportedFormat(type: string | undefined, format: string | undefined): string {
  if (!format) return '';
  switch (type ?? '') {
    case '':
    case 'string':
      return SUPPORTED_STRING_FORMATS.has(normalize(format)) ? format : '';
    case 'integer':
      return format === 'int32' || format === 'int64' ? format : '';
    case 'number':
      return format === 'float' || format === 'double' ? format : '';
    default:
      return '';
  }
}

/** The strfmt check of a string format, or undefined when strfmt registers none (e.g. quantity, int32). */
export function formatChecker(format: string): ((s: string) => boolean) | undefined {
  return VALIDATORS[normalize(format)];
}
