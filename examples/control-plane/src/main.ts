import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import type { Storage } from '@kapi/storage';
import { ADMISSION_FLAGS, ADMISSION_USAGE, admissionOptionsFromFlags } from './admission-flags.ts';
import { AUTHORIZATION_FLAGS, AUTHORIZATION_USAGE, authorizationOptionsFromFlags } from './authorization-flags.ts';
import type { ControlPlane } from './control-plane.ts';
import { ETCD_TLS_FLAGS, ETCD_TLS_USAGE, etcdTLSFromFlags } from './etcd-tls-flags.ts';
import { LEADER_ELECTION_FLAGS, LEADER_ELECTION_USAGE, leaderElectionFromFlags } from './leader-election-flags.ts';
import { jwtOptionsFromFlags, OIDC_FLAGS, OIDC_USAGE } from './oidc-flags.ts';
import { SERVICE_ACCOUNT_FLAGS, SERVICE_ACCOUNT_USAGE, serviceAccountOptionsFromFlags } from './service-account-flags.ts';
import { TOKEN_FLAGS, TOKEN_USAGE, tokenOptionsFromFlags } from './token-flags.ts';

const USAGE = `Usage: npm start -- [--storage memory|etcd://host:port|redis://host:port] [--port 6443] [--bind 127.0.0.1] [--data-dir .kapi] [--workers 1]
  ${ETCD_TLS_USAGE}
  ${LEADER_ELECTION_USAGE}
  [--proxy-client-cert-file <file> --proxy-client-key-file <file>]   (the aggregator's client certificate; default <data-dir>/front-proxy/)
  ${OIDC_USAGE}
  ${TOKEN_USAGE}
  ${SERVICE_ACCOUNT_USAGE}
  ${AUTHORIZATION_USAGE}
  ${ADMISSION_USAGE}`;

function parseFlags() {
  try {
    return parseArgs({
      options: {
        storage: { type: 'string', default: 'memory' },
        port: { type: 'string', default: '6443' },
        bind: { type: 'string', default: '127.0.0.1' },
        'data-dir': { type: 'string', default: '.kapi' },
        workers: { type: 'string', default: '1' },
        ...ETCD_TLS_FLAGS,
        ...LEADER_ELECTION_FLAGS,
        'proxy-client-cert-file': { type: 'string' },
        'proxy-client-key-file': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        ...OIDC_FLAGS,
        ...TOKEN_FLAGS,
        ...SERVICE_ACCOUNT_FLAGS,
        ...AUTHORIZATION_FLAGS,
        ...ADMISSION_FLAGS,
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

const workers = Number(values.workers);
if (!Number.isInteger(workers) || workers < 1) {
  console.error(`--workers must be a whole number of at least 1, not ${JSON.stringify(values.workers)}\n${USAGE}`);
  process.exit(2);
}
// Each worker is a whole server with its own state: only a backend shared between processes can serve several.
if (workers > 1 && values.storage === 'memory') {
  console.error(
    `the memory backend is single-process; use etcd or Redis to run several workers (--storage etcd://… or redis://…)\n${USAGE}`,
  );
  process.exit(2);
}
let leaderElection: ReturnType<typeof leaderElectionFromFlags>;
try {
  leaderElection = leaderElectionFromFlags(values, workers);
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (workers > 1 && cluster.isPrimary) {
  const { runPrimary } = await import('./workers.ts');
  runPrimary(workers);
} else {
  await serveControlPlane();
}

async function serveControlPlane(): Promise<void> {
  if (!values['proxy-client-cert-file'] !== !values['proxy-client-key-file']) {
    console.error(`--proxy-client-cert-file and --proxy-client-key-file go together\n${USAGE}`);
    process.exit(2);
  }

  let jwt: Awaited<ReturnType<typeof jwtOptionsFromFlags>>;
  let tokenOptions: ReturnType<typeof tokenOptionsFromFlags>;
  let serviceAccountOptions: ReturnType<typeof serviceAccountOptionsFromFlags>;
  let authorizationOptions: ReturnType<typeof authorizationOptionsFromFlags>;
  let admissionOptions: ReturnType<typeof admissionOptionsFromFlags>;
  let etcdTLS: ReturnType<typeof etcdTLSFromFlags>;
  try {
    etcdTLS = etcdTLSFromFlags(values, values.storage);
    jwt = await jwtOptionsFromFlags(values);
    tokenOptions = tokenOptionsFromFlags(values);
    serviceAccountOptions = serviceAccountOptionsFromFlags(values);
    authorizationOptions = authorizationOptionsFromFlags(values);
    admissionOptions = admissionOptionsFromFlags(values);
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }

  // Loaded after the flags are checked, so --help and usage errors answer at once.
  const { startControlPlane, storageFromFlag } = await import('./control-plane.ts');
  let storage: Storage;
  try {
    storage = storageFromFlag(values.storage, etcdTLS);
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (/^etcds?:\/\//.test(values.storage)) {
    // One read first, so an etcd that cannot be reached (down, or a TLS handshake it refuses: wrong CA, no client
    // certificate) stops the start with etcd's error, rather than start-up steps that retry on unref'd timers
    // leaving nothing to wait for.
    try {
      await storage.get('/kapi-startup-check', { ignoreNotFound: true });
    } catch (err) {
      console.error(`kapi example control plane failed to start: etcd ${values.storage}: ${(err as Error).message}`);
      process.exit(1);
    }
  }
  let plane: ControlPlane;
  try {
    plane = await startControlPlane({
      storage,
      port,
      bind: values.bind,
      dataDir: values['data-dir'],
      ...(values['proxy-client-cert-file'] ? { proxyClientCertFile: values['proxy-client-cert-file'] } : {}),
      ...(values['proxy-client-key-file'] ? { proxyClientKeyFile: values['proxy-client-key-file'] } : {}),
      ...(jwt.length > 0 ? { jwt } : {}),
      ...tokenOptions,
      ...serviceAccountOptions,
      ...authorizationOptions,
      ...admissionOptions,
      ...(leaderElection ? { leaderElection } : {}),
    });
  } catch (err) {
    console.error(`kapi example control plane failed to start: ${(err as Error).message}`);
    process.exit(1);
  }
  const worker = cluster.isWorker ? ` (worker ${process.pid})` : '';
  console.log(`kapi example control plane serving ${plane.url} (storage: ${values.storage})${worker}`);
  console.log(`  kubectl --kubeconfig ${plane.kubeconfigPath} get widgets`);
  console.log(`  kubectl --kubeconfig ${plane.clientCertKubeconfigPath} auth whoami   # the admin's client certificate`);
  if (plane.leaderElection)
    console.log(
      `  leader election: ${plane.leaderElection.leaseNamespace}/${plane.leaderElection.leaseName} as ${plane.leaderElection.identity}`,
    );

  let stopping = false;
  const shutDown = (why: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`\n${why}: shutting down`);
    plane.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  if (cluster.isWorker) {
    // A worker stops when the primary says (SIGTERM) or is gone; a terminal's ^C reaches the primary, which passes it on.
    process.on('SIGINT', () => {});
    process.on('SIGTERM', () => shutDown('SIGTERM'));
    process.on('disconnect', () => shutDown('primary gone'));
  } else for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => shutDown(signal));
}
