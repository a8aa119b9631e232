/**
 * Indents compact JSON text by two spaces a level, as Go's json.Indent does for `?pretty` (and as
 * `JSON.stringify(v, null, 2)` does, whose recursion gives up near 4,000 levels while an accepted object may nest
 * 10,000). A scan over the text, so any depth is safe; empty objects and arrays stay `{}` and `[]`.
 */
export function indentJson(compact: string): string {
  const parts: string[] = [];
  // Newline plus indentation for each depth, built as ropes of the one before, so deep text costs no extra copies.
  const breaks: string[] = ['\n'];
  const lineAt = (depth: number): string => {
    for (let d = breaks.length; d <= depth; d++) breaks.push(`${breaks[d - 1]}  `);
    return breaks[depth] as string;
  };
  let depth = 0;
  let from = 0;
  for (let i = 0; i < compact.length; i++) {
    const c = compact.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: up to the quote no backslash escapes.
      for (i++; i < compact.length; i++) {
        const s = compact.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const next = compact.charCodeAt(i + 1);
      if (next === CLOSE_BRACE || next === CLOSE_BRACKET) {
        i++;
        continue;
      }
      parts.push(compact.slice(from, i + 1), lineAt(++depth));
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      parts.push(compact.slice(from, i), lineAt(--depth), compact[i] as string);
    } else if (c === COMMA) {
      parts.push(compact.slice(from, i + 1), lineAt(depth));
    } else if (c === COLON) {
      parts.push(compact.slice(from, i + 1), ' ');
    } else {
      continue;
    }
    from = i + 1;
  }
  parts.push(compact.slice(from));
  return parts.join('');
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
