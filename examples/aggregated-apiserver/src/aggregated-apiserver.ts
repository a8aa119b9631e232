import { resolve } from 'node:path';
import { storageFromFlag } from '@kapi/example-control-plane/storage-flag';
import type { Store } from '@kapi/registry';
import {
  type DelegationConnection,
  delegatingAuthentication,
  delegatingAuthorization,
  GenericAPIServer,
  type Serving,
  selfSignedServingCertificate,
  serve,
} from '@kapi/server-core';
import type { Storage } from '@kapi/storage';
import { banFlunder } from './ban-flunder.ts';
import { Fischer, type Fischer as FischerObject, Flunder, WARDLE_GROUP } from './wardle.ts';

/** Where the example registers itself in the main server (sample-apiserver's manifests: Service wardle/api). */
export const WARDLE_NAMESPACE = 'wardle';
export const WARDLE_SERVICE = 'api';

export interface AggregatedAPIServerOptions {
  /** `memory` (default), `etcd://host:port` or `redis://host:port` (as `npm start`'s --storage), or a backend. */
  storage?: string | Storage;
  /** Default 8443; 0 = any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  bind?: string;
  /** Where the serving certificate is kept (apiserver.crt/.key); none = a new one each start. */
  dataDir?: string;
  /**
   * The main server (kube's --kubeconfig of sample-apiserver): a kubeconfig path or a connection; also the default of
   * the two below, which without it are the pod's service account (`{ inCluster: true }`, kube's rest.InClusterConfig).
   */
  kubeconfig?: string | DelegationConnection;
  /** kube's --authentication-kubeconfig: who checks tokens (TokenReview) and publishes the front-proxy trust. */
  authenticationKubeconfig?: string | DelegationConnection;
  /** kube's --authorization-kubeconfig: who answers SubjectAccessReviews. */
  authorizationKubeconfig?: string | DelegationConnection;
  /** The Service that will front it, for the serving certificate's name `<service>.<namespace>.svc`. Default wardle/api. */
  service?: { namespace: string; name: string };
  /** Told of errors reading the main server's ConfigMap and of rejected credentials. Default console.error. */
  onError?: (err: unknown) => void;
}

export interface AggregatedAPIServer {
  readonly url: string;
  readonly port: number;
  /** The PEM CA of the serving certificate: the APIService's caBundle. */
  readonly caBundle: string;
  readonly server: GenericAPIServer;
  readonly serving: Serving;
  /** Stops serving, closes the connections to the main server and the storage. */
  stop(): Promise<void>;
}

const connectionOf = (c: string | DelegationConnection): DelegationConnection => (typeof c === 'string' ? { kubeconfig: c } : c);

/**
 * sample-apiserver in kapi: wardle.example.com/v1alpha1 Flunder and Fischer over their own storage, served over HTTPS
 * with k8s.io/apiserver's delegated authentication and authorization — the front proxy's X-Remote-* headers believed
 * from the client certificate the main server's kube-system/extension-apiserver-authentication trusts, tokens
 * checked by TokenReview and every request authorized by SubjectAccessReview against the main server.
 */
export async function startAggregatedAPIServer(options: AggregatedAPIServerOptions): Promise<AggregatedAPIServer> {
  const main = options.kubeconfig;
  const authnConn = options.authenticationKubeconfig ?? main ?? { inCluster: true };
  const authzConn = options.authorizationKubeconfig ?? main ?? { inCluster: true };
  const onError = options.onError ?? ((err: unknown) => console.error(`wardle: ${(err as Error).message ?? String(err)}`));
  const storage = typeof options.storage === 'object' ? options.storage : storageFromFlag(options.storage ?? 'memory');
  const bind = options.bind ?? '127.0.0.1';
  const service = options.service ?? { namespace: WARDLE_NAMESPACE, name: WARDLE_SERVICE };
  // kube-aggregator verifies the serving certificate for the Service's DNS name, whatever address it dials.
  const cert = await selfSignedServingCertificate({
    ...(options.dataDir ? { dir: resolve(options.dataDir) } : {}),
    hosts: [`${service.name}.${service.namespace}.svc`, `${service.name}.${service.namespace}.svc.cluster.local`],
    ips: [bind],
  });
  const authn = await delegatingAuthentication({ connection: connectionOf(authnConn), onError });
  const authz = delegatingAuthorization({ connection: connectionOf(authzConn) });
  const server = new GenericAPIServer({
    storage,
    resources: [Flunder, Fischer],
    // sample-apiserver's only admission plugin.
    admission: banFlunder(() => server.store(`fischers.${WARDLE_GROUP}`) as Store<FischerObject> | undefined),
    authentication: authn.authentication,
    authorizer: authz.authorizer,
  });
  let serving: Serving;
  try {
    await server.start();
    serving = await serve(server.handler, {
      port: options.port ?? 8443,
      host: bind,
      tls: { cert: cert.cert, key: cert.key, clientCA: authn.clientCAs },
    });
  } catch (err) {
    authn.close();
    authz.close();
    await server.shutdown();
    throw err;
  }
  const url = serving.url.replace('0.0.0.0', '127.0.0.1');
  let stopping: Promise<void> | undefined;
  return {
    url,
    port: Number(new URL(url).port),
    caBundle: cert.ca,
    server,
    serving,
    stop: () => {
      stopping ??= server.shutdown({ serving, gracePeriodMs: 5000 }).finally(() => {
        authn.close();
        authz.close();
      });
      return stopping;
    },
  };
}
