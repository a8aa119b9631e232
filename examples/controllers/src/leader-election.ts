import { type LeaderElectorOptions, type LeaseLock, type LeaseRecord, LeaderElector as PackageElector } from '@kapi/server-core';
import {
  type ConfigurationOptions,
  CustomObjectsApi,
  type KubeConfig,
  Observable,
  type ObservableMiddleware,
} from '@kubernetes/client-node';
import { statusOf } from './example-kinds.ts';

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits. */
export { formatMicroTime as microTime } from '@kapi/server-core';

/** LeaderElectorOptions of @kapi/server-core, with the Lease reached through `kubeConfig` instead of a lock. */
export interface LeaderElectionOptions extends Omit<LeaderElectorOptions, 'lock' | 'namespace'> {
  kubeConfig: KubeConfig;
  /** The Lease: coordination.k8s.io/v1 in `namespace` (default kube-system) named `name`. */
  namespace?: string;
}

type RequestOptions = ConfigurationOptions<ObservableMiddleware>;

/** client-node request options that abort the request with `signal` (its fetch takes the RequestContext's signal). */
function withSignal(signal: AbortSignal | undefined): RequestOptions | undefined {
  if (!signal) return undefined;
  const middleware: ObservableMiddleware = {
    pre: (request) => {
      request.setSignal(signal);
      return new Observable(Promise.resolve(request));
    },
    post: (response) => new Observable(Promise.resolve(response)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: 'append' };
}

/**
 * The Lease read and written over HTTP with client-node (raw JSON through CustomObjectsApi: client-node's typed Lease
 * would write Date's milliseconds, not a MicroTime); 404 on read is no Lease, 409 on a write a lost race.
 */
export function clientLeaseLock(kubeConfig: KubeConfig, namespace: string, name: string): LeaseLock {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const coords = { group: 'coordination.k8s.io', version: 'v1', namespace, plural: 'leases', name };
  const conflict = (err: unknown): undefined => {
    if (statusOf(err) === 409) return undefined;
    throw err;
  };
  return {
    async get(signal) {
      try {
        return (await api.getNamespacedCustomObject(coords, withSignal(signal))) as LeaseRecord;
      } catch (err) {
        if (statusOf(err) === 404) return undefined;
        throw err;
      }
    },
    async create(body, signal) {
      try {
        return (await api.createNamespacedCustomObject({ ...coords, body }, withSignal(signal))) as LeaseRecord;
      } catch (err) {
        return conflict(err);
      }
    },
    async update(body, signal) {
      try {
        return (await api.replaceNamespacedCustomObject({ ...coords, body }, withSignal(signal))) as LeaseRecord;
      } catch (err) {
        return conflict(err);
      }
    },
  };
}

/**
 * client-go's leaderelection with a LeaseLock, through the API with client-node: @kapi/server-core's LeaderElector
 * (the one kapi servers use in process for their controllers) over `clientLeaseLock`. See that class for the
 * semantics: renewals every retryPeriod, takeover after leaseDuration unchanged as this candidate observed it, the
 * renew deadline, and the Lease released on `stop()`.
 */
export class LeaderElector extends PackageElector {
  constructor(options: LeaderElectionOptions) {
    const { kubeConfig, namespace = 'kube-system', ...rest } = options;
    super({ ...rest, namespace, lock: clientLeaseLock(kubeConfig, namespace, options.name) });
  }
}
