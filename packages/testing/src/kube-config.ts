import { createRequire } from 'node:module';
import type { KubeConfig } from '@kubernetes/client-node';

/** @kubernetes/client-node's KubeConfig (a type only: client-node is an optional peer dependency). */
export type KubeConfigLike = KubeConfig;

const require = createRequire(import.meta.url);

/**
 * A client-node KubeConfig for the admin of a test server. client-node is loaded here, synchronously (Node's
 * require of an ES module), the first time a test asks: loading it costs far more than starting a server.
 */
export function loadKubeConfig(target: { url: string; token: string; ca?: string }): KubeConfig {
  let clientNode: typeof import('@kubernetes/client-node');
  try {
    clientNode = require('@kubernetes/client-node');
  } catch (err) {
    throw new Error('TestServer.kubeConfig needs @kubernetes/client-node: npm install --save-dev @kubernetes/client-node', {
      cause: err,
    });
  }
  const kc = new clientNode.KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'kapi',
        server: target.url,
        // client-node refuses http:// unless told TLS is not checked; with https the CA is.
        skipTLSVerify: !target.ca,
        ...(target.ca ? { caData: Buffer.from(target.ca).toString('base64') } : {}),
      },
    ],
    users: [{ name: 'kapi-admin', ...(target.token ? { token: target.token } : {}) }],
    contexts: [{ name: 'kapi', cluster: 'kapi', user: 'kapi-admin', namespace: 'default' }],
    currentContext: 'kapi',
  });
  return kc;
}
