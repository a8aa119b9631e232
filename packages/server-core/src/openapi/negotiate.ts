import { parseAccept as parseMediaRanges } from '../endpoints/negotiation.ts';

/**
 * Accept negotiation as kube-openapi's handlers do it (munnerz/goautoneg): clauses ordered by q (highest first,
 * then the more specific, then in the order given), q=0 refused, `*` wildcards on type and subtype, media-type parameters other than q
 * ignored; the first clause some offer matches wins, offers tried in their own order. No Accept means `*\/*`.
 */

export interface AcceptClause {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

/** The Accept header's clauses, best first (endpoints' parser: q=0 dropped); no Accept means `*\/*`. */
export function parseAccept(header: string | undefined): AcceptClause[] {
  if (!header?.trim()) return [{ type: '*', subtype: '*', q: 1 }];
  return parseMediaRanges(header).map(({ type, subtype, q }) => ({ type, subtype, q }));
}

/** The first offer (a `type/subtype` string) the client accepts, or undefined (a 406). */
export function negotiate<T extends string>(header: string | undefined, offers: readonly T[]): T | undefined {
  for (const c of parseAccept(header)) {
    for (const offer of offers) {
      const [type, subtype] = offer.toLowerCase().split('/');
      if ((c.type === '*' || c.type === type) && (c.subtype === '*' || c.subtype === subtype)) return offer;
    }
  }
  return undefined;
}
