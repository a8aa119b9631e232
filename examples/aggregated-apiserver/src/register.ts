import { request } from 'node:https';
import { webhookTLSOptions } from '@kapi/authn';
import { connectionConfig, type DelegationConnection } from '@kapi/server-core';
import { WARDLE_NAMESPACE, WARDLE_SERVICE } from './aggregated-apiserver.ts';
import { WARDLE_GROUP, WARDLE_VERSION } from './wardle.ts';

export interface RegisterOptions {
  /** The main server and credentials allowed to write Namespaces, Services, Endpoints and APIServices there. */
  kubeconfig: string | DelegationConnection;
  /** The port the aggregated server listens on at `address`. */
  port: number;
  /** Default 127.0.0.1. */
  address?: string;
  /** PEM CA of the aggregated server's serving certificate (the APIService's caBundle). */
  caBundle: string;
  /** Default wardle/api. */
  service?: { namespace: string; name: string };
}

// biome-ignore lint/suspicious/noExplicitAny: objects are built and read field by field
type Json = any;

/**
 * What sample-apiserver's deployment manifests create, for a server running outside any cluster: the Namespace, a
 * Service (port 443) with Endpoints at the server's own address (so the main server's endpoints resolver dials it),
 * and the APIService v1alpha1.wardle.example.com naming that Service, with the serving certificate's CA,
 * groupPriorityMinimum 1000 and versionPriority 15. Each object is created, or updated when it exists.
 */
export async function registerAPIService(options: RegisterOptions): Promise<void> {
  const config = connectionConfig(typeof options.kubeconfig === 'string' ? { kubeconfig: options.kubeconfig } : options.kubeconfig);
  const { namespace, name } = options.service ?? { namespace: WARDLE_NAMESPACE, name: WARDLE_SERVICE };
  const call = (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
      if (config.token) headers.authorization = `Bearer ${config.token}`;
      const req = request(
        `${config.server.replace(/\/+$/, '')}${path}`,
        {
          method,
          headers,
          agent: false,
          ...webhookTLSOptions(config),
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  /** Create, or replace what exists (keeping its resourceVersion and what the server owns, e.g. status). */
  const apply = async (collection: string, obj: Json): Promise<void> => {
    const created = await call('POST', collection, obj);
    if (created.status === 201) return;
    if (created.status !== 409)
      throw new Error(`create ${collection}/${obj.metadata.name}: ${created.status} ${created.body?.message ?? ''}`);
    const path = `${collection}/${obj.metadata.name}`;
    const current = await call('GET', path);
    if (current.status !== 200) throw new Error(`get ${path}: ${current.status} ${current.body?.message ?? ''}`);
    const updated = await call('PUT', path, {
      ...current.body,
      ...obj,
      metadata: { ...current.body.metadata, ...obj.metadata, resourceVersion: current.body.metadata.resourceVersion },
    });
    if (updated.status !== 200) throw new Error(`update ${path}: ${updated.status} ${updated.body?.message ?? ''}`);
  };

  await apply('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await apply(`/api/v1/namespaces/${namespace}/services`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: options.port }] },
  });
  await apply(`/api/v1/namespaces/${namespace}/endpoints`, {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name, namespace },
    subsets: [{ addresses: [{ ip: options.address ?? '127.0.0.1' }], ports: [{ name: 'https', port: options.port, protocol: 'TCP' }] }],
  });
  await apply('/apis/apiregistration.k8s.io/v1/apiservices', {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${WARDLE_VERSION}.${WARDLE_GROUP}` },
    spec: {
      group: WARDLE_GROUP,
      version: WARDLE_VERSION,
      service: { namespace, name, port: 443 },
      caBundle: Buffer.from(options.caBundle).toString('base64'),
      groupPriorityMinimum: 1000,
      versionPriority: 15,
    },
  });
}
