import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { chargeCost } from '../cost.ts';
import { celCompare, celEquals } from '../values.ts';
import { kubeName } from './overrides.ts';

/** CEL's names for kube's comparable element types (lists.go comparableTypes). */
const COMPARABLE = ['int', 'uint', 'double', 'bool', 'google.protobuf.Duration', 'google.protobuf.Timestamp', 'string', 'bytes'];

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
const MAX_UINT64 = (1n << 64n) - 1n;

/**
 * kube's lists library (k8s.io/apiserver/pkg/cel/library/lists.go): isSorted, sum, min, max, indexOf,
 * lastIndexOf. Each traverses its list, so each charges the list's size (kube's cost.go does the same).
 */
export function registerLists(env: Environment): void {
  for (const t of COMPARABLE) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, isSorted);
    env.registerFunction(`list<${t}>.min(): ${t}`, (list: unknown[]) => pick(list, 'min', 1));
    env.registerFunction(`list<${t}>.max(): ${t}`, (list: unknown[]) => pick(list, 'max', -1));
  }
  env.registerFunction('list<int>.sum(): int', (list: bigint[]) => sumInts(list));
  env.registerFunction('list<uint>.sum(): uint', (list: UnsignedInt[]) => sumUints(list));
  env.registerFunction('list<double>.sum(): double', (list: number[]) => {
    chargeCost(list.length);
    return list.reduce((a, b) => a + Number(b), 0);
  });
  env.registerFunction('list<google.protobuf.Duration>.sum(): google.protobuf.Duration', (list: Duration[]) => {
    chargeCost(list.length);
    return list.reduce((a, b) => a.addDuration(b), new Duration(0n, 0));
  });
  env.registerFunction(`list<A>.${kubeName('indexOf')}(A): int`, (list: unknown[], item: unknown) => {
    chargeCost(list.length);
    return BigInt(list.findIndex((v) => celEquals(v, item)));
  });
  env.registerFunction(`list<A>.${kubeName('lastIndexOf')}(A): int`, (list: unknown[], item: unknown) => {
    chargeCost(list.length);
    return BigInt(list.findLastIndex((v) => celEquals(v, item)));
  });
}

function isSorted(list: unknown[]): boolean {
  chargeCost(list.length);
  for (let i = 1; i < list.length; i++) if (celCompare(list[i - 1], list[i]) === 1) return false;
  return true;
}

/** lists.go cmp: keeps the first element unless a later one compares the preferred way. */
function pick(list: unknown[], op: 'min' | 'max', replaceWhen: 1 | -1): unknown {
  chargeCost(list.length);
  if (list.length === 0) throw new Error(`${op} called on empty list`);
  let result = list[0];
  for (let i = 1; i < list.length; i++) if (celCompare(result, list[i]) === replaceWhen) result = list[i];
  return result;
}

function sumInts(list: bigint[]): bigint {
  chargeCost(list.length);
  let sum = 0n;
  for (const v of list) {
    sum += BigInt(v);
    if (sum > MAX_INT64 || sum < MIN_INT64) throw new Error('integer overflow');
  }
  return sum;
}

function sumUints(list: UnsignedInt[]): UnsignedInt {
  chargeCost(list.length);
  let sum = 0n;
  for (const v of list) {
    sum += v.value;
    if (sum > MAX_UINT64) throw new Error('unsigned integer overflow');
  }
  return new UnsignedInt(sum);
}
