/**
 * kube's version priority (k8s.io/apimachinery/pkg/version/helpers.go CompareKubeAwareVersionStrings):
 * "v<major>[(alpha|beta)<minor>]" versions rank GA > beta > alpha, then by major, then by minor; any other
 * string ranks below them all, and such strings order lexicographically (ascending) among themselves.
 */

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

interface KubeVersion {
  major: number;
  /** 0 alpha, 1 beta, 2 GA. */
  type: number;
  minor: number;
}

function parseKubeVersion(v: string): KubeVersion | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  const major = Number(m[1]);
  const type = m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2;
  const minor = m[3] === undefined ? 0 : Number(m[3]);
  // Go's strconv.Atoi fails on values beyond int64; such strings are not kube versions there either.
  if (!Number.isSafeInteger(major) || !Number.isSafeInteger(minor)) return undefined;
  return { major, type, minor };
}

/** > 0 when `a` has the higher priority, < 0 when `b` has, 0 when equal. */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const va = parseKubeVersion(a);
  const vb = parseKubeVersion(b);
  if (!va && !vb) return a < b ? 1 : -1;
  if (!va) return -1;
  if (!vb) return 1;
  if (va.type !== vb.type) return va.type - vb.type;
  if (va.major !== vb.major) return va.major - vb.major;
  return va.minor - vb.minor;
}

/** A copy of `versions`, highest priority first: v2, v1, v1beta2, v1beta1, v1alpha1, then others. */
export function sortVersionsByPriority(versions: readonly string[]): string[] {
  return [...versions].sort((a, b) => compareKubeAwareVersions(b, a));
}
