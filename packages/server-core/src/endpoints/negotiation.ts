import { newNotAcceptable } from '@kapi/apimachinery';

/** What a response body should be: the object itself, or one of meta.k8s.io's transformations of it. */
export type OutputTarget = 'object' | 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

export type OutputMediaType = 'application/json' | 'application/yaml';

export interface NegotiatedOutput {
  readonly mediaType: OutputMediaType;
  readonly target: OutputTarget;
  /** The meta.k8s.io version a Table or partial-metadata answer is given in (the one the client asked for). */
  readonly metaVersion?: 'v1' | 'v1beta1';
}

/** The media types kapi encodes; kube-apiserver lists protobuf too, which kapi does not speak. */
export const SUPPORTED_MEDIA_TYPES: readonly string[] = ['application/json', 'application/yaml'];

interface MediaRange {
  type: string;
  subtype: string;
  params: Map<string, string>;
  q: number;
  order: number;
}

/** Accept header → media ranges, best first (q, then specificity, then order), as mime.ParseMediaType-per-clause does. */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header?.trim()) return [];
  const out: MediaRange[] = [];
  let order = 0;
  for (const clause of header.split(',')) {
    const [full = '', ...rawParams] = clause.split(';');
    const [type = '', subtype = ''] = full.trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    const params = new Map<string, string>();
    let q = 1;
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const key = p.slice(0, eq).trim().toLowerCase();
      const value = p
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if (key === 'q') {
        const n = Number(value);
        q = Number.isFinite(n) ? n : 0;
      } else params.set(key, value);
    }
    if (q <= 0) continue;
    out.push({ type, subtype, params, q, order: order++ });
  }
  const specificity = (r: MediaRange): number => (r.type === '*' ? 0 : r.subtype === '*' ? 1 : 2);
  return out.sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.order - b.order);
}

function mediaTypeOf(r: MediaRange): OutputMediaType | undefined {
  if (r.type === '*' && r.subtype === '*') return 'application/json';
  if (r.type !== 'application') return undefined;
  if (r.subtype === '*' || r.subtype === 'json') return 'application/json';
  if (r.subtype === 'yaml') return 'application/yaml';
  return undefined;
}

export interface OutputOptions {
  /** `as=Table` may be asked for (reads of resources with a table convertor). */
  table?: boolean;
  /** Which partial-metadata form fits: PartialObjectMetadata for a get, PartialObjectMetadataList for a list. */
  partial?: 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  /** Watches stream JSON only. */
  jsonOnly?: boolean;
}

const PLAIN_JSON: NegotiatedOutput = Object.freeze({ mediaType: 'application/json', target: 'object' });
/** Accept headers that negotiate to plain JSON whatever the options: the commonest, so decided once. */
const PLAIN_JSON_ACCEPT: ReadonlySet<string> = new Set(['', 'application/json', '*/*', 'application/json, */*']);

/**
 * The response form for an Accept header, as kube-apiserver's negotiation picks it: the first acceptable clause
 * wins; a clause asking for `as=Table` or partial metadata in an unknown group/version is skipped; nothing
 * acceptable → 406 NotAcceptable.
 */
export function negotiateOutput(accept: string | undefined, options: OutputOptions = {}): NegotiatedOutput {
  // What client-go, fetch and curl send (or nothing) always means plain JSON: answered without parsing the header.
  if (accept === undefined || PLAIN_JSON_ACCEPT.has(accept)) return PLAIN_JSON;
  const ranges = parseAccept(accept);
  if (!ranges.length) return PLAIN_JSON;
  for (const r of ranges) {
    const mediaType = mediaTypeOf(r);
    if (!mediaType || (options.jsonOnly && mediaType !== 'application/json')) continue;
    const as = r.params.get('as');
    if (as === undefined) {
      return { mediaType, target: 'object' };
    }
    if (r.params.get('g') !== 'meta.k8s.io') continue;
    const v = r.params.get('v');
    if (v !== 'v1' && v !== 'v1beta1') continue;
    if (as === 'Table' && options.table) return { mediaType, target: 'Table', metaVersion: v };
    if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && as === options.partial)
      return { mediaType, target: as, metaVersion: v };
  }
  throw newNotAcceptable(options.jsonOnly ? ['application/json'] : SUPPORTED_MEDIA_TYPES);
}

/** Request body kinds by Content-Type. */
export type BodyType = 'json' | 'yaml' | 'json-patch' | 'merge-patch' | 'strategic-merge-patch' | 'apply-patch';

const BODY_TYPES: ReadonlyMap<string, BodyType> = new Map([
  ['application/json', 'json'],
  ['application/yaml', 'yaml'],
  ['application/json-patch+json', 'json-patch'],
  ['application/merge-patch+json', 'merge-patch'],
  ['application/strategic-merge-patch+json', 'strategic-merge-patch'],
  ['application/apply-patch+yaml', 'apply-patch'],
]);

/** The media type of a Content-Type header without parameters, lower-cased; '' when absent. */
export function contentTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function bodyTypeOf(mediaType: string): BodyType | undefined {
  return BODY_TYPES.get(mediaType);
}
