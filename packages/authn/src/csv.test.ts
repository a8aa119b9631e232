import { describe, expect, it } from 'vitest';
import { type CsvParseError, parseCsv } from './csv.ts';

const fields = (text: string): string[][] => parseCsv(text).map((r) => r.fields);

describe('parseCsv (Go encoding/csv)', () => {
  it('reads plain and quoted fields, "" escapes, CRLF, multi-line quotes, and skips empty lines', () => {
    expect(fields('a,b,c\n\n"x,y","say ""hi""",\r\nlast')).toEqual([['a', 'b', 'c'], ['x,y', 'say "hi"', ''], ['last']]);
    expect(fields('"multi\nline",z\n')).toEqual([['multi\nline', 'z']]);
    expect(parseCsv('\n\na,b\n').map((r) => r.line)).toEqual([3]);
    expect(fields(' a , b ')).toEqual([[' a ', ' b ']]);
    expect(fields('')).toEqual([]);
  });

  it('fails with Go’s messages, lines and columns', () => {
    const err = (text: string): CsvParseError => {
      try {
        parseCsv(text);
      } catch (e) {
        return e as CsvParseError;
      }
      throw new Error('no error');
    };
    expect(err('ok,1\ntok,us"er,1\n').message).toBe('parse error on line 2, column 7: bare " in non-quoted-field');
    expect(err('tok,"user"x,1\n').message).toBe('parse error on line 1, column 10: extraneous or missing " in quoted-field');
    expect(err('a,"b\nc').message).toBe('record on line 1; parse error on line 2, column 2: extraneous or missing " in quoted-field');
    expect(err('ok\nx,"').line).toBe(2);
  });
});
