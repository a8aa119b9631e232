/**
 * Where a webhook's `clientConfig.service` is reached (kube's webhook.ServiceResolver). A generic control plane has no
 * Services, so the address comes from the embedder: a map given in options, or any resolver. The TLS server name
 * stays `<name>.<namespace>.svc`, as kube-apiserver verifies it.
 */
export interface ServiceResolver {
  /** The https URL whose host:port is dialled; throws when the service is unknown. */
  resolve(namespace: string, name: string, port: number): URL;
}

/**
 * A resolver from a map. Keys are `<namespace>/<name>:<port>` or `<namespace>/<name>` (any port); values are URLs
 * (`https://127.0.0.1:8443`) whose host and port are dialled.
 */
export function mapServiceResolver(services: Readonly<Record<string, string | URL>>): ServiceResolver {
  return {
    resolve(namespace, name, port) {
      const target = services[`${namespace}/${name}:${port}`] ?? services[`${namespace}/${name}`];
      if (target === undefined) throw new Error(`service "${name}" in namespace "${namespace}" (port ${port}) is not known to this server`);
      return new URL(target);
    },
  };
}
