/**
 * Accept negotiation as kube-openapi's handlers do it (munnerz/goautoneg): clauses ordered by q (highest first,
 * ties in the order given), q=0 refused, `*` wildcards on type and subtype, media-type parameters other than q
 * ignored; the first clause some offer matches wins, offers tried in their own order. No Accept means `*\/*`.
 */

export interface AcceptClause {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

/** Parses an Accept header into clauses, best first; clauses with q=0 or a malformed range are dropped. */
export function parseAccept(header: string | undefined): AcceptClause[] {
  const clauses: (AcceptClause & { i: number })[] = [];
  const parts = (header === undefined || header.trim() === '' ? '*/*' : header).split(',');
  parts.forEach((part, i) => {
    const [range = '', ...params] = part.split(';').map((s) => s.trim());
    const slash = range.indexOf('/');
    const type = slash < 0 ? range : range.slice(0, slash);
    const subtype = slash < 0 ? '*' : range.slice(slash + 1);
    if (type === '' || subtype === '') return;
    let q = 1;
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq > 0 && p.slice(0, eq).trim().toLowerCase() === 'q') {
        const v = Number(p.slice(eq + 1).trim());
        q = Number.isFinite(v) ? Math.min(Math.max(v, 0), 1) : 0;
      }
    }
    if (q > 0) clauses.push({ type: type.toLowerCase(), subtype: subtype.toLowerCase(), q, i });
  });
  return clauses.sort((a, b) => b.q - a.q || a.i - b.i).map(({ type, subtype, q }) => ({ type, subtype, q }));
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
