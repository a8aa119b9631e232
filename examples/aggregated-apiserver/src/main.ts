import { parseArgs } from 'node:util';
import type { AggregatedAPIServer } from './aggregated-apiserver.ts';

const USAGE = `Usage: node src/main.ts [--kubeconfig <main server kubeconfig>] [--register]
  [--authentication-kubeconfig <file>] [--authorization-kubeconfig <file>]
  [--storage memory|etcd://host:port|redis://host:port] [--port 8443] [--bind 127.0.0.1] [--data-dir <dir>]
  --authentication-kubeconfig / --authorization-kubeconfig default to --kubeconfig, else to the pod's service
  account (in-cluster: KUBERNETES_SERVICE_HOST/PORT and /var/run/secrets/kubernetes.io/serviceaccount).
  --register: create Namespace wardle, Service and Endpoints wardle/api (at --bind:--port) and the APIService
  v1alpha1.wardle.example.com in the main server (with --kubeconfig's credentials, so it needs --kubeconfig).`;

function parseFlags() {
  try {
    return parseArgs({
      options: {
        kubeconfig: { type: 'string' },
        'authentication-kubeconfig': { type: 'string' },
        'authorization-kubeconfig': { type: 'string' },
        storage: { type: 'string', default: 'memory' },
        port: { type: 'string', default: '8443' },
        bind: { type: 'string', default: '127.0.0.1' },
        'data-dir': { type: 'string' },
        register: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}
const { values } = parseFlags();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number, not ${JSON.stringify(values.port)}\n${USAGE}`);
  process.exit(2);
}
if (values.register && !values.kubeconfig) {
  console.error(`--register needs --kubeconfig\n${USAGE}`);
  process.exit(2);
}

const { startAggregatedAPIServer } = await import('./aggregated-apiserver.ts');
const { registerAPIService } = await import('./register.ts');
let server: AggregatedAPIServer;
try {
  server = await startAggregatedAPIServer({
    storage: values.storage,
    port,
    bind: values.bind,
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    // Without a kubeconfig, the main server is the cluster the pod runs in (sample-apiserver's rest.InClusterConfig).
    ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
    ...(values['authentication-kubeconfig'] !== undefined ? { authenticationKubeconfig: values['authentication-kubeconfig'] } : {}),
    ...(values['authorization-kubeconfig'] !== undefined ? { authorizationKubeconfig: values['authorization-kubeconfig'] } : {}),
  });
} catch (err) {
  console.error(`wardle aggregated API server failed to start: ${(err as Error).message}`);
  process.exit(1);
}
console.log(`wardle aggregated API server serving ${server.url} (storage: ${values.storage})`);
if (values.register && values.kubeconfig) {
  try {
    await registerAPIService({
      kubeconfig: values.kubeconfig,
      port: server.port,
      address: new URL(server.url).hostname,
      caBundle: server.caBundle,
    });
  } catch (err) {
    console.error(`registering the APIService failed: ${(err as Error).message}`);
    await server.stop();
    process.exit(1);
  }
  console.log('registered APIService v1alpha1.wardle.example.com (service wardle/api)');
  console.log(`  kubectl --kubeconfig ${values.kubeconfig} get flunders -A`);
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`\n${signal}: shutting down`);
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}
