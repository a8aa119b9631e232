import { Counter, Histogram, type Registry } from 'prom-client';

/** How an authentication attempt ended, as kube's labels: a user, no credential anyone took, or a refused credential. */
export type AuthenticationResultLabel = 'success' | 'failure' | 'error';

/** kube's buckets for authentication_duration_seconds: ExponentialBuckets(0.001, 2, 15). */
export const AUTHENTICATION_DURATION_BUCKETS: readonly number[] = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);

/**
 * kube's authentication metrics (k8s.io/apiserver/pkg/endpoints/filters/metrics.go): authentication_attempts and
 * authentication_duration_seconds by result, and authenticated_user_requests by compressed user name. The
 * authentication filter feeds them; they are served with the server's other metrics.
 */
export class AuthenticationMetrics {
  readonly attempts: Counter<'result'>;
  readonly duration: Histogram<'result'>;
  readonly userRequests: Counter<'username'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.attempts = new Counter({
      name: 'authentication_attempts',
      help: 'Counter of authenticated attempts.',
      labelNames: ['result'],
      registers,
    });
    this.duration = new Histogram({
      name: 'authentication_duration_seconds',
      help: 'Authentication duration in seconds broken out by result.',
      labelNames: ['result'],
      buckets: [...AUTHENTICATION_DURATION_BUCKETS],
      registers,
    });
    this.userRequests = new Counter({
      name: 'authenticated_user_requests',
      help: 'Counter of authenticated requests broken out by username.',
      labelNames: ['username'],
      registers,
    });
  }

  /** One authentication attempt: its result, its duration, and (on success) who, compressed as kube does. */
  observe(result: AuthenticationResultLabel, seconds: number, username?: string): void {
    this.attempts.inc({ result });
    this.duration.observe({ result }, seconds);
    if (result === 'success' && username !== undefined) this.userRequests.inc({ username: compressUsername(username) });
  }
}

/** kube's compressUsername: a few known identities by name, e-mail addresses as one value, the rest as "other". */
export function compressUsername(username: string): string {
  if (['admin', 'client', 'kube_proxy', 'kubelet', 'system:serviceaccount:kube-system:default'].includes(username)) return username;
  if (username.includes('@')) return 'email_id';
  return 'other';
}
