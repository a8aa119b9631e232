import { freePort } from './free-port.ts';
import { poll, startProcess, type TestServer } from './process-server.ts';

export interface EtcdServer extends TestServer {
  /** `http://127.0.0.1:<port>`, for a client. */
  readonly endpoint: string;
}

export interface EtcdOptions {
  /** etcd's --experimental-watch-progress-notify-interval (default 100ms, so progress tests are quick). */
  progressNotifyInterval?: string;
  extraArgs?: string[];
}

/** Starts a single-member etcd on free loopback client and peer ports with a temp data dir. */
export async function startEtcd(opts: EtcdOptions = {}): Promise<EtcdServer> {
  const host = '127.0.0.1';
  const port = await freePort();
  const peer = await freePort();
  const client = `http://${host}:${port}`;
  const peerUrl = `http://${host}:${peer}`;
  const server = await startProcess({
    command: 'etcd',
    debianPackage: 'etcd-server',
    host,
    port,
    args: (dataDir) => [
      '--name',
      'kapi-test',
      '--data-dir',
      dataDir,
      '--listen-client-urls',
      client,
      '--advertise-client-urls',
      client,
      '--listen-peer-urls',
      peerUrl,
      '--initial-advertise-peer-urls',
      peerUrl,
      '--initial-cluster',
      `kapi-test=${peerUrl}`,
      '--initial-cluster-state',
      'new',
      '--experimental-watch-progress-notify-interval',
      opts.progressNotifyInterval ?? '100ms',
      '--log-level',
      'error',
      '--logger',
      'zap',
      ...(opts.extraArgs ?? []),
    ],
    ready: (deadline) =>
      poll(`etcd on ${client}`, deadline, async () => {
        const res = await fetch(`${client}/health`, { signal: AbortSignal.timeout(1000) });
        const body = (await res.json()) as { health?: string };
        return body.health === 'true';
      }),
  });
  return Object.assign(server, { endpoint: client });
}
