import { newBadRequest } from './status-error.ts';

/**
 * Continue tokens (k8s.io/apiserver/pkg/storage/continue.go): base64url without padding of
 * `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after the prefix>"}`. The revision pins every page
 * of a listing to the first page's snapshot; rv -1 asks for the latest (an "inconsistent" continuation).
 */
const TOKEN_VERSION = 'meta.k8s.io/v1';

export interface DecodedContinue {
  /** The full key to start from (inclusive). */
  fromKey: string;
  /** The revision the listing reads at; negative means "latest". */
  rv: number;
}

/** Encodes the token for a listing under `keyPrefix` that resumes at `key` (usually lastKey + "\u0000"). */
export function encodeContinue(key: string, keyPrefix: string, rv: number): string {
  if (!key.startsWith(keyPrefix) || key === keyPrefix) {
    throw new Error(`unable to encode next field: the key and key prefix do not match ${keyPrefix} ${key}`);
  }
  const json = JSON.stringify({ v: TOKEN_VERSION, rv, start: key.slice(keyPrefix.length) });
  return Buffer.from(json, 'utf8').toString('base64url');
}

function invalid(detail: string): never {
  throw newBadRequest(`invalid continue token: ${detail}`);
}

/** POSIX path.Clean, for rejecting start keys that would escape the listed prefix. */
export function cleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(seg);
  }
  const joined = out.join('/');
  if (rooted) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

/**
 * Decodes a token for a listing under `keyPrefix` (which ends in "/"). Throws 400 "invalid continue token: …"
 * for bad base64 or JSON, an unknown version, rv 0, an empty start, or a start that path cleaning changes.
 */
export function decodeContinue(token: string, keyPrefix: string): DecodedContinue {
  if (!/^[A-Za-z0-9_-]*$/.test(token) || token.length % 4 === 1) {
    invalid('continue key is not valid: illegal base64 data');
  }
  const text = Buffer.from(token, 'base64url').toString('utf8');
  let c: unknown;
  try {
    c = JSON.parse(text);
  } catch (e) {
    invalid(`continue key is not valid: ${(e as Error).message}`);
  }
  if (typeof c !== 'object' || c === null || Array.isArray(c)) invalid('continue key is not valid: not a JSON object');
  const { v, rv, start } = c as { v?: unknown; rv?: unknown; start?: unknown };
  if (v !== TOKEN_VERSION) {
    invalid(`continue key is not valid: server does not recognize this encoded version ${String(v ?? '')}`);
  }
  if (rv !== undefined && (typeof rv !== 'number' || !Number.isInteger(rv))) invalid('continue key is not valid: rv is not an integer');
  if (start !== undefined && typeof start !== 'string') invalid('continue key is not valid: start is not a string');
  if (!rv) invalid('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (!start) invalid('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  const key = start.startsWith('/') ? start : `/${start}`;
  if (cleanPath(key) !== key) invalid(`continue key is not valid: ${start}`);
  return { fromKey: keyPrefix + key.slice(1), rv };
}
