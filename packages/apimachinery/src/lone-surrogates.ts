import { setOwn } from './json-data.ts';

/**
 * Go's JSON decoder (and so kube-apiserver's, and sigs.k8s.io/yaml's, which goes through JSON) turns an escape of a
 * lone UTF-16 surrogate (`"\ud800"`, not half of a pair) into U+FFFD; JSON.parse and the yaml library keep it. A
 * kept lone surrogate is a string no URL can name (a path's `%ED%A0%80` decodes to U+FFFD), which the backends store
 * under different keys (the memory backend as the UTF-16 string, etcd and Redis as UTF-8, where it is U+FFFD): the
 * object could be created but not read, updated or deleted again. Decoders replace them as Go does.
 */

/** Whether decoded `text` may hold a lone surrogate: only an escape (`\uD800`, YAML's `\U0000D800`) can write one. */
export function mayHoldLoneSurrogates(text: string): boolean {
  return /\\[uU]0*[dD][89a-fA-F]/.test(text);
}

// String#isWellFormed and #toWellFormed (ES2024, in every Node this package supports; the project's lib is ES2023).
type WellFormed = { isWellFormed(): boolean; toWellFormed(): string };
const isWellFormed = (s: string): boolean => (s as unknown as WellFormed).isWellFormed();
const toWellFormed = (s: string): string => (s as unknown as WellFormed).toWellFormed();

/** Replaces lone surrogates in every string and key of a freshly decoded value with U+FFFD (in place). */
export function replaceLoneSurrogates<T>(value: T): T {
  const fix = (v: unknown): unknown => (typeof v === 'string' && !isWellFormed(v) ? toWellFormed(v) : v);
  const root = fix(value) as T;
  // An explicit stack: decoded values may nest 10,000 levels.
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        v[i] = fix(v[i]);
        if (v[i] !== null && typeof v[i] === 'object') stack.push(v[i]);
      }
    } else if (v !== null && typeof v === 'object') {
      const obj = v as Record<string, unknown>;
      const keys = Object.keys(obj);
      if (keys.some((k) => !isWellFormed(k))) {
        // Renamed keys keep their order; where two become one, the later wins, as Go's decoder's later key does.
        const entries = keys.map((k) => [toWellFormed(k), obj[k]] as const);
        for (const k of keys) delete obj[k];
        for (const [k, e] of entries) setOwn(obj, k, e);
      }
      for (const k of Object.keys(obj)) {
        const e = fix(obj[k]);
        if (e !== obj[k]) setOwn(obj, k, e);
        if (e !== null && typeof e === 'object') stack.push(e);
      }
    }
  }
  return root;
}
