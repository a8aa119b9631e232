import { X509Certificate } from 'node:crypto';
import { type FieldError, fieldErrors, goQuote, isDNS1123Subdomain, OMIT_VALUE } from '@kapi/apimachinery';

/**
 * k8s.io/apiserver/pkg/util/webhook/validation.go, with kube's messages: the clientConfig checks shared by admission
 * webhook configurations and CRD conversion webhooks.
 */

const FORM = '; desired format: https://host[/path]';

/** A Go url.URL's parts, as url.Parse splits a string (enough for ValidateWebhookURL). */
function goURLParts(raw: string): { scheme: string; host: string; user?: string; fragment: string; rawQuery: string } {
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = (m[1] as string).toLowerCase();
    rest = rest.slice(m[0].length);
  }
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    let authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      user = authority.slice(0, at);
      authority = authority.slice(at + 1);
    }
    host = authority;
  }
  return { scheme, host, ...(user !== undefined ? { user } : {}), fragment, rawQuery };
}

/** The two errors of Go's url.Parse a webhook URL is likely to meet: control characters, and a port that is not a number. */
function goURLParseError(raw: string): string | undefined {
  // url.Error prints the URL with %q
  const quoted = goQuote(raw);
  const hasControl = [...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (hasControl) return `parse ${quoted}: net/url: invalid control character in URL`;
  const u = goURLParts(raw);
  const colon = u.host.startsWith('[') ? u.host.indexOf(':', u.host.indexOf(']')) : u.host.lastIndexOf(':');
  if (colon >= 0 && !/^[0-9]*$/.test(u.host.slice(colon + 1)))
    return `parse ${quoted}: invalid port ${goQuote(u.host.slice(colon))} after host`;
  return undefined;
}

/** ValidateWebhookURL. */
export function validateWebhookURL(path: string, url: string, forceHttps: boolean): FieldError[] {
  const parseError = goURLParseError(url);
  if (parseError) return [fieldErrors.required(path, `url must be a valid URL: ${parseError}${FORM}`)];
  const errs: FieldError[] = [];
  const u = goURLParts(url);
  if (forceHttps && u.scheme !== 'https') errs.push(fieldErrors.invalid(path, u.scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (u.host === '') errs.push(fieldErrors.invalid(path, u.host, `host must be specified${FORM}`));
  if (u.user !== undefined) errs.push(fieldErrors.invalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment !== '') errs.push(fieldErrors.invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.rawQuery !== '') errs.push(fieldErrors.invalid(path, u.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/**
 * ValidateWebhookService(fldPath, namespace, name, path, port). kube's admissionregistration and CRD validation both
 * call it with the service's name and namespace the other way round, so a missing name is reported at `.namespace` and
 * a missing namespace at `.name` (kubernetes/kubernetes#141353); callers here pass the arguments as kube passes them.
 */
export function validateWebhookService(
  path: string,
  namespace: string,
  name: string,
  urlPath: string | undefined,
  port: number,
): FieldError[] {
  const errs: FieldError[] = [];
  if (name === '') errs.push(fieldErrors.required(`${path}.name`, ''));
  if (namespace === '') errs.push(fieldErrors.required(`${path}.namespace`, ''));
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    errs.push(fieldErrors.invalid(`${path}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (urlPath === undefined || urlPath === '' || urlPath === '/') return errs;
  const at = `${path}.path`;
  if (urlPath === '//') {
    errs.push(fieldErrors.invalid(at, urlPath, 'segment[0] may not be empty'));
    return errs;
  }
  if (!urlPath.startsWith('/')) errs.push(fieldErrors.invalid(at, urlPath, "must start with a '/'"));
  let check = urlPath.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') {
      errs.push(fieldErrors.invalid(at, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) errs.push(fieldErrors.invalid(at, urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}

/** Go's `%#v` of a []byte, as a field error prints it. */
function goBytes(b: Uint8Array): string {
  return b.length === 0 ? '[]byte{}' : `[]byte{${Array.from(b, (x) => `0x${x.toString(16)}`).join(', ')}}`;
}

/**
 * ValidateCABundle: the bundle (base64 in JSON, bytes in Go) must hold at least one PEM CERTIFICATE block without
 * headers, and every such block must parse (cert.ParseCertsPEM). A parse failure is worded as Go's x509 package words
 * the commonest one.
 */
export function validateCABundle(path: string, caBundle: string): FieldError[] {
  const bytes = Buffer.from(caBundle, 'base64');
  const text = bytes.toString('latin1');
  let ok = false;
  let err: string | undefined;
  const block = /-----BEGIN ([^-\r\n]+)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (let m = block.exec(text); m; m = block.exec(text)) {
    const body = m[2] as string;
    // Blocks with headers ("Key: value" lines) or of another type are skipped, as kube skips them.
    if (m[1] !== 'CERTIFICATE' || /^[^\s:]+:/m.test(body)) continue;
    try {
      new X509Certificate(Buffer.from(body.replace(/\s+/g, ''), 'base64'));
      ok = true;
    } catch {
      err = 'x509: malformed certificate';
      break;
    }
  }
  if (!err && !ok) err = 'data does not contain any valid RSA or ECDSA certificates';
  return err ? [{ type: 'FieldValueInvalid', field: path, badValue: OMIT_VALUE, detail: `${goBytes(bytes)}: ${err}` }] : [];
}
