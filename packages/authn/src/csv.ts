/**
 * Go's encoding/csv Reader with kube's settings (comma ',', FieldsPerRecord -1, no lazy quotes, no comments),
 * so a token file that kube reads is read the same here and one kube rejects fails with Go's message:
 * `parse error on line 2, column 9: bare " in non-quoted-field`.
 */

/** Go's csv.ParseError: `line` is 1-based, `column` a 1-based byte offset in that line. */
export class CsvParseError extends Error {
  readonly startLine: number;
  readonly line: number;
  readonly column: number;
  constructor(startLine: number, line: number, column: number, reason: string) {
    super(
      startLine === line
        ? `parse error on line ${line}, column ${column}: ${reason}`
        : `record on line ${startLine}; parse error on line ${line}, column ${column}: ${reason}`,
    );
    this.name = 'CsvParseError';
    this.startLine = startLine;
    this.line = line;
    this.column = column;
  }
}

export const ERR_BARE_QUOTE = 'bare " in non-quoted-field';
export const ERR_QUOTE = 'extraneous or missing " in quoted-field';

/** One record: its fields and the line it starts on. */
export interface CsvRecord {
  readonly fields: string[];
  readonly line: number;
}

const bytes = (s: string): number => Buffer.byteLength(s);

/** Reads every record; throws CsvParseError at the first malformed one. Empty lines are skipped, as Go does. */
export function parseCsv(text: string): CsvRecord[] {
  // Lines keep their '\n'; '\r\n' reads as '\n', and a '\r' right before EOF is dropped (Go's readLine).
  const raw = text.split(/(?<=\n)/).filter((l) => l !== '');
  const lines = raw.map((l) => (l.endsWith('\r\n') ? `${l.slice(0, -2)}\n` : l.endsWith('\r') ? l.slice(0, -1) : l));
  const records: CsvRecord[] = [];
  let next = 0;
  const readLine = (): string | undefined => lines[next++];
  const nlLength = (s: string): number => (s.endsWith('\n') ? 1 : 0);

  for (;;) {
    let line = readLine();
    if (line === undefined) return records;
    if (line.length === nlLength(line)) continue; // empty line
    const recLine = next;
    let lineNo = next;
    let col = 1;
    const fields: string[] = [];
    for (;;) {
      if (!line.startsWith('"')) {
        const i = line.indexOf(',');
        const field = i >= 0 ? line.slice(0, i) : line.slice(0, line.length - nlLength(line));
        const q = field.indexOf('"');
        if (q >= 0) throw new CsvParseError(recLine, lineNo, col + bytes(field.slice(0, q)), ERR_BARE_QUOTE);
        fields.push(field);
        if (i < 0) break;
        col += bytes(field) + 1;
        line = line.slice(i + 1);
        continue;
      }
      // Quoted field: may span lines; "" is a literal quote.
      line = line.slice(1);
      col += 1;
      let value = '';
      let done = false;
      for (;;) {
        const i = line.indexOf('"');
        if (i >= 0) {
          value += line.slice(0, i);
          col += bytes(line.slice(0, i)) + 1;
          line = line.slice(i + 1);
          if (line.startsWith('"')) {
            value += '"';
            line = line.slice(1);
            col += 1;
          } else if (line.startsWith(',')) {
            line = line.slice(1);
            col += 1;
            fields.push(value);
            break;
          } else if (line.length === nlLength(line)) {
            fields.push(value);
            done = true;
            break;
          } else {
            throw new CsvParseError(recLine, lineNo, col - 1, ERR_QUOTE);
          }
        } else if (line.length > 0) {
          value += line;
          col += bytes(line);
          const more = readLine();
          // EOF inside quotes: Go reports the missing quote where the text ran out.
          if (more === undefined) throw new CsvParseError(recLine, lineNo, col, ERR_QUOTE);
          line = more;
          lineNo = next;
          col = 1;
        } else {
          throw new CsvParseError(recLine, lineNo, col, ERR_QUOTE);
        }
      }
      if (done) break;
    }
    records.push({ fields, line: recLine });
  }
}
