import type { Environment } from '@marcbachmann/cel-js';
import { Quantity, QuantityParseError } from '../quantity/quantity.ts';

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);

/**
 * kube's quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go), CEL type `kubernetes.Quantity`:
 * quantity, isQuantity, sign, isGreaterThan, isLessThan, compareTo, add, sub, asInteger, isInteger,
 * asApproximateFloat; `==` compares values ("200M" == "0.2G").
 */
export function registerQuantity(env: Environment): void {
  // no fields: the value's internals are not CEL fields
  env.registerType('kubernetes.Quantity', { ctor: Quantity, fields: {} });
  env.registerOperator('kubernetes.Quantity == kubernetes.Quantity', (a: Quantity, b: Quantity) => a.equals(b));
  env.registerFunction('quantity(string): kubernetes.Quantity', (s: string) => {
    try {
      return Quantity.parse(s);
    } catch (e) {
      // kube wraps the parse error as it is (types.WrapErr)
      if (e instanceof QuantityParseError) throw new Error(e.message);
      throw e;
    }
  });
  env.registerFunction('isQuantity(string): bool', (s: string) => {
    try {
      Quantity.parse(s);
      return true;
    } catch {
      return false;
    }
  });
  env.registerFunction('kubernetes.Quantity.sign(): int', (q: Quantity) => BigInt(q.sign()));
  env.registerFunction('kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool', (a: Quantity, b: Quantity) => a.cmp(b) === 1);
  env.registerFunction('kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool', (a: Quantity, b: Quantity) => a.cmp(b) === -1);
  env.registerFunction('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (a: Quantity, b: Quantity) => BigInt(a.cmp(b)));
  env.registerFunction('kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity', (a: Quantity, b: Quantity) => a.add(b));
  env.registerFunction('kubernetes.Quantity.add(int): kubernetes.Quantity', (a: Quantity, b: bigint) => a.add(Quantity.fromInt(b)));
  env.registerFunction('kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity', (a: Quantity, b: Quantity) => a.sub(b));
  env.registerFunction('kubernetes.Quantity.sub(int): kubernetes.Quantity', (a: Quantity, b: bigint) => a.sub(Quantity.fromInt(b)));
  env.registerFunction('kubernetes.Quantity.asInteger(): int', (q: Quantity) => {
    const v = q.asInt64();
    if (v === undefined || v > MAX_INT64 || v < MIN_INT64) throw new Error('cannot convert value to integer');
    return v;
  });
  env.registerFunction('kubernetes.Quantity.isInteger(): bool', (q: Quantity) => q.asInt64() !== undefined);
  env.registerFunction('kubernetes.Quantity.asApproximateFloat(): double', (q: Quantity) => q.asApproximateFloat());
}
