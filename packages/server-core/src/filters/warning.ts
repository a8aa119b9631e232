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
  for (const w of new Set(warnings)) {
    const v = headerValue(formatWarning(w));
    if (!values.includes(v)) values.push(v);
  }
  res.setHeader('Warning', values);
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
