import { goQuote } from '@kapi/apimachinery';

/**
 * The message of the syntax error Go's encoding/json gives for `text`, or null when it is valid JSON. kube quotes it in
 * its policy-file errors, so the scanner below follows encoding/json's scanner.go state by state (byte-wise, as Go's).
 */
export function goJSONSyntaxError(text: string): string | null {
  const bytes = Buffer.from(text, 'utf8');
  const s = new Scanner();
  for (const c of bytes) {
    s.step(c);
    if (s.err !== null) return s.err;
  }
  if (s.endTop) return null;
  s.step(0x20);
  if (s.endTop) return null;
  return s.err ?? 'unexpected end of JSON input';
}

type Step = (c: number) => void;
/** What the scanner is inside of (Go's parseObjectKey, parseObjectValue, parseArrayValue). */
const Parse = { ObjectKey: 0, ObjectValue: 1, ArrayValue: 2 } as const;
type Parse = (typeof Parse)[keyof typeof Parse];

const MAX_NESTING_DEPTH = 10_000;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Go's quoteChar: the byte as a Go character literal. */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  return `'${goQuote(String.fromCharCode(c)).slice(1, -1)}'`;
}

class Scanner {
  err: string | null = null;
  endTop = false;
  readonly #parse: Parse[] = [];
  #step: Step = (c) => this.#beginValue(c);

  step(c: number): void {
    this.#step(c);
  }

  #error(c: number, context: string): void {
    this.#step = () => {};
    this.err = `invalid character ${quoteChar(c)} ${context}`;
  }

  #beginValue(c: number): void {
    if (isSpace(c)) return;
    switch (c) {
      case 0x7b: // {
        this.#push(c, Parse.ObjectKey, (d) => this.#beginStringOrEmpty(d));
        return;
      case 0x5b: // [
        this.#push(c, Parse.ArrayValue, (d) => this.#beginValueOrEmpty(d));
        return;
      case 0x22:
        this.#step = (d) => this.#inString(d);
        return;
      case 0x2d: // -
        this.#step = (d) => this.#neg(d);
        return;
      case 0x30:
        this.#step = (d) => this.#zero(d);
        return;
      case 0x74:
        this.#literal('true', 1);
        return;
      case 0x66:
        this.#literal('false', 1);
        return;
      case 0x6e:
        this.#literal('null', 1);
        return;
    }
    if (c >= 0x31 && c <= 0x39) {
      this.#step = (d) => this.#one(d);
      return;
    }
    this.#error(c, 'looking for beginning of value');
  }

  /** Go's pushParseState: nesting deeper than encoding/json's maxNestingDepth (10000) is an error. */
  #push(c: number, state: Parse, next: Step): void {
    this.#parse.push(state);
    if (this.#parse.length <= MAX_NESTING_DEPTH) this.#step = next;
    else this.#error(c, 'exceeded max depth');
  }

  #beginValueOrEmpty(c: number): void {
    if (isSpace(c)) return;
    if (c === 0x5d) {
      this.#endValue(c);
      return;
    }
    this.#beginValue(c);
  }

  #beginStringOrEmpty(c: number): void {
    if (isSpace(c)) return;
    if (c === 0x7d) {
      this.#parse[this.#parse.length - 1] = Parse.ObjectValue;
      this.#endValue(c);
      return;
    }
    this.#beginString(c);
  }

  #beginString(c: number): void {
    if (isSpace(c)) return;
    if (c === 0x22) {
      this.#step = (d) => this.#inString(d);
      return;
    }
    this.#error(c, 'looking for beginning of object key string');
  }

  #endValue(c: number): void {
    const n = this.#parse.length;
    if (n === 0) {
      this.#step = (d) => this.#endTop(d);
      this.endTop = true;
      this.#endTop(c);
      return;
    }
    if (isSpace(c)) {
      this.#step = (d) => this.#endValue(d);
      return;
    }
    switch (this.#parse[n - 1]) {
      case Parse.ObjectKey:
        if (c === 0x3a) {
          this.#parse[n - 1] = Parse.ObjectValue;
          this.#step = (d) => this.#beginValue(d);
          return;
        }
        this.#error(c, 'after object key');
        return;
      case Parse.ObjectValue:
        if (c === 0x2c) {
          this.#parse[n - 1] = Parse.ObjectKey;
          this.#step = (d) => this.#beginString(d);
          return;
        }
        if (c === 0x7d) {
          this.#pop();
          return;
        }
        this.#error(c, 'after object key:value pair');
        return;
      default:
        if (c === 0x2c) {
          this.#step = (d) => this.#beginValue(d);
          return;
        }
        if (c === 0x5d) {
          this.#pop();
          return;
        }
        this.#error(c, 'after array element');
        return;
    }
  }

  #pop(): void {
    this.#parse.pop();
    if (this.#parse.length === 0) {
      this.#step = (d) => this.#endTop(d);
      this.endTop = true;
    } else this.#step = (d) => this.#endValue(d);
  }

  #endTop(c: number): void {
    if (!isSpace(c)) this.#error(c, 'after top-level value');
  }

  #inString(c: number): void {
    if (c === 0x22) this.#step = (d) => this.#endValue(d);
    else if (c === 0x5c) this.#step = (d) => this.#inStringEsc(d);
    else if (c < 0x20) this.#error(c, 'in string literal');
  }

  #inStringEsc(c: number): void {
    if ('bfnrt\\/"'.includes(String.fromCharCode(c))) this.#step = (d) => this.#inString(d);
    else if (c === 0x75) this.#step = (d) => this.#escU(d, 1);
    else this.#error(c, 'in string escape code');
  }

  #escU(c: number, i: number): void {
    if (!isHex(c)) {
      this.#error(c, 'in \\u hexadecimal character escape');
      return;
    }
    this.#step = i === 4 ? (d) => this.#inString(d) : (d) => this.#escU(d, i + 1);
  }

  #neg(c: number): void {
    if (c === 0x30) this.#step = (d) => this.#zero(d);
    else if (c >= 0x31 && c <= 0x39) this.#step = (d) => this.#one(d);
    else this.#error(c, 'in numeric literal');
  }

  #one(c: number): void {
    if (isDigit(c)) return;
    this.#zero(c);
  }

  #zero(c: number): void {
    if (c === 0x2e) this.#step = (d) => this.#dot(d);
    else if (c === 0x65 || c === 0x45) this.#step = (d) => this.#e(d);
    else this.#endValue(c);
  }

  #dot(c: number): void {
    if (isDigit(c)) this.#step = (d) => this.#dot0(d);
    else this.#error(c, 'after decimal point in numeric literal');
  }

  #dot0(c: number): void {
    if (isDigit(c)) return;
    if (c === 0x65 || c === 0x45) this.#step = (d) => this.#e(d);
    else this.#endValue(c);
  }

  #e(c: number): void {
    if (c === 0x2b || c === 0x2d) this.#step = (d) => this.#eSign(d);
    else this.#eSign(c);
  }

  #eSign(c: number): void {
    if (isDigit(c)) this.#step = (d) => this.#e0(d);
    else this.#error(c, 'in exponent of numeric literal');
  }

  #e0(c: number): void {
    if (isDigit(c)) return;
    this.#endValue(c);
  }

  /** true, false and null: `word` matched up to `i`. */
  #literal(word: string, i: number): void {
    this.#step = (c) => {
      const want = word.charCodeAt(i);
      if (c !== want) {
        this.#error(c, `in literal ${word} (expecting ${quoteChar(want)})`);
        return;
      }
      if (i + 1 === word.length) this.#step = (d) => this.#endValue(d);
      else this.#literal(word, i + 1);
    };
  }
}
