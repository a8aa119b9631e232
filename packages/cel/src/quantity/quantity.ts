/**
 * A Kubernetes resource quantity with k8s.io/apimachinery's resource.Quantity semantics: exact decimal
 * arithmetic, parse errors with kube's texts, and kube's two internal forms. Kube keeps a quantity either as
 * an int64 scaled by a power of ten (the fast form) or as an arbitrary-precision decimal; `asInteger` only
 * succeeds on the fast form, so a value like "1.5Gi" (parsed through the decimal form) is not an integer
 * to kube even though its value is whole. This class keeps that distinction so CEL rules behave the same.
 */

const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${SPLIT_RE}'`;
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const ERR_SUFFIX = "unable to parse quantity's suffix";

export class QuantityParseError extends Error {
  override readonly name = 'QuantityParseError';
}

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
const NANO = -9;
/** maxInt64Factors in apimachinery: the number of decimal digits that always fit an int64. */
const MAX_INT64_FACTORS = 18;

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

export class Quantity {
  /** value = mantissa × 10^exponent. */
  readonly mantissa: bigint;
  readonly exponent: number;
  /** True for kube's int64Amount form (mantissa fits an int64), false for its inf.Dec form. */
  readonly int64Form: boolean;
  readonly format: QuantityFormat;

  private constructor(mantissa: bigint, exponent: number, int64Form: boolean, format: QuantityFormat) {
    this.mantissa = mantissa;
    this.exponent = exponent;
    this.int64Form = int64Form;
    this.format = format;
  }

  static parse(str: string): Quantity {
    return parseQuantity(str);
  }

  /** resource.NewQuantity(value, DecimalExponent). */
  static fromInt(value: bigint): Quantity {
    return new Quantity(value, 0, true, 'DecimalExponent');
  }

  /** @internal */
  static of(mantissa: bigint, exponent: number, int64Form: boolean, format: QuantityFormat): Quantity {
    return new Quantity(mantissa, exponent, int64Form, format);
  }

  sign(): -1 | 0 | 1 {
    return this.mantissa === 0n ? 0 : this.mantissa < 0n ? -1 : 1;
  }

  cmp(other: Quantity): -1 | 0 | 1 {
    const [a, b] = aligned(this, other);
    return a === b ? 0 : a < b ? -1 : 1;
  }

  equals(other: Quantity): boolean {
    return this.cmp(other) === 0;
  }

  add(other: Quantity): Quantity {
    const format = this.mantissa === 0n ? other.format : this.format;
    if (this.int64Form && other.int64Form) {
      const sum = int64AmountAdd(this, other);
      if (sum) return new Quantity(sum.mantissa, sum.exponent, true, format);
    }
    const [a, b, exponent] = aligned(this, other);
    return new Quantity(a + b, exponent, false, format);
  }

  sub(other: Quantity): Quantity {
    const format = this.mantissa === 0n ? other.format : this.format;
    if (this.int64Form && other.int64Form && other.mantissa !== MIN_INT64) {
      const diff = int64AmountAdd(this, { mantissa: -other.mantissa, exponent: other.exponent });
      if (diff) return new Quantity(diff.mantissa, diff.exponent, true, format);
    }
    const [a, b, exponent] = aligned(this, other);
    return new Quantity(a - b, exponent, false, format);
  }

  /** Quantity.AsInt64: only the int64 form at a non-negative exponent converts, and only without overflow. */
  asInt64(): bigint | undefined {
    if (!this.int64Form) return undefined;
    if (this.exponent === 0) return this.mantissa;
    if (this.exponent < 0) return undefined;
    const v = this.mantissa * 10n ** BigInt(this.exponent);
    return v > MAX_INT64 || v < MIN_INT64 ? undefined : v;
  }

  asApproximateFloat(): number {
    // Number() of a decimal literal rounds correctly and gives ±Infinity beyond float64's range.
    return Number(`${this.mantissa}e${this.exponent}`);
  }

  /** The exact value as a decimal string (not kube's canonical form). */
  toString(): string {
    if (this.exponent >= 0) return `${this.mantissa * 10n ** BigInt(this.exponent)}`;
    const negative = this.mantissa < 0n;
    const digits = `${negative ? -this.mantissa : this.mantissa}`.padStart(-this.exponent + 1, '0');
    const cut = digits.length + this.exponent;
    const fraction = digits.slice(cut).replace(/0+$/, '');
    return `${negative ? '-' : ''}${digits.slice(0, cut)}${fraction ? `.${fraction}` : ''}`;
  }
}

function aligned(a: { mantissa: bigint; exponent: number }, b: { mantissa: bigint; exponent: number }): [bigint, bigint, number] {
  const exponent = Math.min(a.exponent, b.exponent);
  return [a.mantissa * 10n ** BigInt(a.exponent - exponent), b.mantissa * 10n ** BigInt(b.exponent - exponent), exponent];
}

function fitsInt64(v: bigint): boolean {
  return v <= MAX_INT64 && v >= MIN_INT64;
}

/** int64Amount.Add: aligns to the smaller exponent; undefined when a step overflows an int64. */
function int64AmountAdd(
  a: { mantissa: bigint; exponent: number },
  b: { mantissa: bigint; exponent: number },
): { mantissa: bigint; exponent: number } | undefined {
  if (b.mantissa === 0n) return a;
  if (a.mantissa === 0n) return b;
  let x = a.mantissa;
  let y = b.mantissa;
  if (a.exponent > b.exponent) x *= 10n ** BigInt(a.exponent - b.exponent);
  else if (b.exponent > a.exponent) y *= 10n ** BigInt(b.exponent - a.exponent);
  if (!fitsInt64(x) || !fitsInt64(y) || !fitsInt64(x + y)) return undefined;
  return { mantissa: x + y, exponent: Math.min(a.exponent, b.exponent) };
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

function interpretSuffix(suffix: string): Suffix | undefined {
  const binary = BINARY_SUFFIXES[suffix];
  if (binary !== undefined) return { base: 2, exponent: binary, format: 'BinarySI' };
  const decimal = DECIMAL_SUFFIXES[suffix];
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: 'DecimalSI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    // strconv.ParseInt(suffix[1:], 10, 32)
    const rest = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(rest)) return undefined;
    const exponent = Number(rest);
    if (exponent > 2147483647 || exponent < -2147483648) return undefined;
    return { base: 10, exponent, format: 'DecimalExponent' };
  }
  return undefined;
}

interface Scanned {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** parseQuantityString in apimachinery, step for step. */
function scan(str: string): Scanned {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;

  while (true) {
    if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
    if (str[pos] !== '0') break;
    pos++;
  }
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
  let num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  num ||= '0';
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && 'eEinumkKMGTP'.includes(str[i] as string)) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  // a character that is neither a suffix letter nor an exponent digit
  throw new QuantityParseError(ERR_FORMAT_WRONG);
}

function parseQuantity(str: string): Quantity {
  if (str.length === 0) throw new QuantityParseError(ERR_FORMAT_WRONG);
  if (str === '0') return Quantity.of(0n, 0, true, 'DecimalSI');
  const { positive, value, num, denom, suffix } = scan(str);
  const interpreted = interpretSuffix(suffix);
  if (!interpreted) throw new QuantityParseError(ERR_SUFFIX);
  const { base, exponent, format } = interpreted;

  // The fast path: the value fits an int64 scaled by a power of ten no finer than nano.
  let precision = 0;
  let scale = 0;
  let multiplier = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      multiplier = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((Math.fround(exponent) * Math.fround(3)) / 10) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const parsed = BigInt(shifted);
      if (parsed > MAX_INT64) throw new QuantityParseError(ERR_NUMERIC);
      const result = parsed * multiplier;
      if (fitsInt64(result)) return Quantity.of(positive ? result : -result, scale, true, format);
    }
  }

  // The decimal path: exact value, rounded up (away from zero) to nano, BinarySI capped at max int64.
  const match = /^[+-]?([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (!match || (match[1] === '' && (match[2] ?? '') === '')) throw new QuantityParseError(ERR_NUMERIC);
  const fraction = match[2] ?? '';
  let mantissa = BigInt(`${match[1] ?? ''}${fraction}` || '0');
  let exp = -fraction.length;
  if (base === 10) exp += exponent;
  else mantissa <<= BigInt(exponent);
  if (mantissa !== 0n && exp < NANO) {
    const divisor = 10n ** BigInt(NANO - exp);
    const quotient = mantissa / divisor;
    mantissa = quotient * divisor === mantissa ? quotient : quotient + 1n;
    exp = NANO;
  }
  let resultFormat = format;
  if (format === 'BinarySI') {
    const [abs, max] = aligned({ mantissa, exponent: exp }, { mantissa: MAX_INT64, exponent: 0 });
    if (abs > max) {
      mantissa = MAX_INT64;
      exp = 0;
    }
    const [a, one] = aligned({ mantissa, exponent: exp }, { mantissa: 1n, exponent: 0 });
    if (a < one && a > 0n) resultFormat = 'DecimalSI';
  }
  return Quantity.of(positive ? mantissa : -mantissa, exp, false, resultFormat);
}
