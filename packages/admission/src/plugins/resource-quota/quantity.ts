import { Quantity } from '@kapi/cel';

/** A quantity as JSON carries it: kube's Quantity unmarshals a string or a number. */
export type QuantityValue = string | number;

/** Parses a quantity of a resource list (a number is read as its decimal text, as kube's UnmarshalJSON does). */
export function parseQuantity(value: QuantityValue): Quantity {
  return Quantity.parse(typeof value === 'number' ? String(value) : value.trim());
}

/** A count as kube's object-count evaluators make it: resource.NewQuantity(n, DecimalSI). */
export function countQuantity(n: number | bigint): Quantity {
  return Quantity.parse(String(n));
}

const DECIMAL_SUFFIX: Record<number, string> = {
  [-9]: 'n',
  [-6]: 'u',
  [-3]: 'm',
  0: '',
  3: 'k',
  6: 'M',
  9: 'G',
  12: 'T',
  15: 'P',
  18: 'E',
};
const BINARY_SUFFIX: Record<number, string> = { 0: '', 1: 'Ki', 2: 'Mi', 3: 'Gi', 4: 'Ti', 5: 'Pi', 6: 'Ei' };

/**
 * kube's Quantity.String(): the canonical form a quantity is written back in (1000 → "1k", 1536Mi → "1536Mi",
 * 2048 in BinarySI → "2Ki", "0.5" → "500m"), as every ResourceList kube-apiserver returns is.
 */
export function canonicalQuantity(q: Quantity): string {
  if (q.mantissa === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    const one024 = countQuantity(1024);
    const small = q.cmp(countQuantity(-1024)) > 0 && q.cmp(one024) < 0;
    // Shown in base 1024 only when it is a whole number, else it would be rounded.
    if (small || !isInteger(q)) format = 'DecimalSI';
  }
  if (format === 'BinarySI') {
    let value = q.exponent >= 0 ? q.mantissa * 10n ** BigInt(q.exponent) : q.mantissa / 10n ** BigInt(-q.exponent);
    let times = 0;
    while (times < 6 && value % 1024n === 0n) {
      value /= 1024n;
      times++;
    }
    return `${value}${BINARY_SUFFIX[times]}`;
  }
  // Trailing zeros become exponent, then the exponent is lowered to a multiple of three.
  let mantissa = q.mantissa;
  let exponent = q.exponent;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  const r = ((exponent % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(r);
  exponent -= r;
  if (format === 'DecimalSI') {
    const suffix = DECIMAL_SUFFIX[exponent];
    if (suffix !== undefined) return `${mantissa}${suffix}`;
  }
  return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
}

function isInteger(q: Quantity): boolean {
  return q.exponent >= 0 || q.mantissa % 10n ** BigInt(-q.exponent) === 0n;
}

/** The canonical text of a quantity as sent, or undefined when it does not parse. */
export function canonicalText(value: QuantityValue): string | undefined {
  try {
    return canonicalQuantity(parseQuantity(value));
  } catch {
    return undefined;
  }
}
