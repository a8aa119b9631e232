import type { ServerResponse } from 'node:http';
import type { Filter, RequestContext } from './context.ts';

/** Records a warning for the response, once per distinct text. */
export function addWarning(ctx: RequestContext, text: string): void {
  if (text && !ctx.warnings.includes(text)) ctx.warnings.push(text);
}

/** `299 - "<text>"`, with `"` and `\` escaped as RFC 7234 quoted-strings need (k8s.io/apimachinery/pkg/util/net). */
export function formatWarning(text: string): string {
  return `299 - "${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * Turns ctx.warnings into Warning headers at the moment the response head is written, so warnings
 * added anywhere before then are sent. Deduplicated; headers the handler set itself are kept.
 */
export function withWarnings(): Filter {
  return async (ctx, next) => {
    const res = ctx.res;
    const target = res as unknown as { writeHead: (...args: unknown[]) => unknown };
    const original = target.writeHead;
    // node's implicit header path (write/end without writeHead) also goes through writeHead.
    target.writeHead = function (this: ServerResponse, ...args: unknown[]): unknown {
      appendWarnings(this, ctx.warnings);
      return original.apply(this, args);
    };
    await next();
  };
}

function appendWarnings(res: ServerResponse, warnings: readonly string[]): void {
  if (!warnings.length) return;
  const existing = res.getHeader('Warning');
  const have = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
  const values = [...have];
  for (const w of truncatedAsKube(warnings)) {
    const v = headerValue(formatWarning(w));
    if (!values.includes(v)) values.push(v);
  }
  res.setHeader('Warning', values);
}

/** kube's warning recorder limits (k8s.io/apiserver/pkg/endpoints/filters/warning.go). */
const TRUNCATE_AT_TOTAL_RUNES = 4 * 1024;
const TRUNCATE_ITEM_RUNES = 256;

/**
 * The warnings kube's recorder writes, in order and deduplicated: all of them while their text stays within 4096
 * runes; past that, each is cut to 256 runes and none is added once 4096 are written. Without the limit a webhook
 * answering thousands of warnings makes a response head no client reads (node's limit is 16 KiB).
 */
function truncatedAsKube(warnings: readonly string[]): string[] {
  const cut = (text: string): [string, number] => {
    const runes = [...text];
    return runes.length > TRUNCATE_ITEM_RUNES ? [runes.slice(0, TRUNCATE_ITEM_RUNES).join(''), TRUNCATE_ITEM_RUNES] : [text, runes.length];
  };
  const out: string[] = [];
  const seen: string[] = [];
  let written = 0;
  let truncating = false;
  for (const text of new Set(warnings)) {
    if (truncating && written >= TRUNCATE_AT_TOTAL_RUNES) break;
    seen.push(text);
    const [t, n] = truncating ? cut(text) : [text, [...text].length];
    if (truncating || written + n <= TRUNCATE_AT_TOTAL_RUNES) {
      written += n;
      out.push(t);
      continue;
    }
    // Over the limit: start again with every warning so far cut to 256 runes, as kube replays them.
    truncating = true;
    written = 0;
    out.length = 0;
    for (const w of seen) {
      const [tw, nw] = cut(w);
      written += nw;
      out.push(tw);
    }
  }
  return out;
}

/**
 * A header value node sends as given. node writes a header string as latin1 when the head goes out alone but as UTF-8
 * when it goes out with a string body, and throws on characters past latin1; only ASCII is sent the same every time.
 * So characters past ASCII are written as Go's strconv.QuoteToASCII writes them (\u00fc, \U0001f600), and control
 * characters, which node refuses, become spaces (Go's server does so for CR and LF).
 */
function headerValue(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (cp >= 0x20 && cp < 0x7f) out += ch;
    else if (cp === 0x09) out += ch;
    else if (cp < 0x20 || cp === 0x7f) out += ' ';
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return out;
}
