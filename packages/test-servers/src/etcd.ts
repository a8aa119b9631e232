import { freePort } from './free-port.ts';
import { type ProcessSpec, poll, startProcess, type TestServer } from './process-server.ts';

export interface EtcdServer extends TestServer {
  /** `http://127.0.0.1:<port>`, for a client. */
  readonly endpoint: string;
}

export interface EtcdOptions {
  /** etcd's --experimental-watch-progress-notify-interval (default 100ms, so progress tests are quick). */
  progressNotifyInterval?: string;
  extraArgs?: string[];
}

/** One etcd member to start: its name and URLs, the cluster it belongs to and the flags only a cluster adds. */
export interface EtcdMemberSpec {
  name: string;
  host: string;
  /** The client port, in `client`. */
  port: number;
  /** `http://host:port` for clients. */
  client: string;
  /** `http://host:port` for peers. */
  peer: string;
  /** --initial-cluster: `name=peer` of every member. */
  initialCluster: string;
  /** Flags placed after --initial-cluster-state (a cluster's token and election timing). */
  clusterArgs?: string[];
  /** What the readiness poll's error names the member. */
  label: string;
  progressNotifyInterval?: string | undefined;
  extraArgs?: string[] | undefined;
}

/** The process spec of an etcd member: its flags, and ready once its /health says so. */
export function etcdMemberProcess(m: EtcdMemberSpec): ProcessSpec {
  return {
    command: 'etcd',
    debianPackage: 'etcd-server',
    host: m.host,
    port: m.port,
    args: (dataDir) => [
      '--name',
      m.name,
      '--data-dir',
      dataDir,
      '--listen-client-urls',
      m.client,
      '--advertise-client-urls',
      m.client,
      '--listen-peer-urls',
      m.peer,
      '--initial-advertise-peer-urls',
      m.peer,
      '--initial-cluster',
      m.initialCluster,
      '--initial-cluster-state',
      'new',
      ...(m.clusterArgs ?? []),
      '--experimental-watch-progress-notify-interval',
      m.progressNotifyInterval ?? '100ms',
      '--log-level',
      'error',
      '--logger',
      'zap',
      ...(m.extraArgs ?? []),
    ],
    ready: (deadline) =>
      poll(m.label, deadline, async () => {
        const res = await fetch(`${m.client}/health`, { signal: AbortSignal.timeout(1000) });
        const body = (await res.json()) as { health?: string };
        return body.health === 'true';
      }),
  };
}

/** Starts a single-member etcd on free loopback client and peer ports with a temp data dir. */
export async function startEtcd(opts: EtcdOptions = {}): Promise<EtcdServer> {
  const host = '127.0.0.1';
  const port = await freePort();
  const peer = await freePort();
  const client = `http://${host}:${port}`;
  const peerUrl = `http://${host}:${peer}`;
  const server = await startProcess(
    etcdMemberProcess({
      name: 'kapi-test',
      host,
      port,
      client,
      peer: peerUrl,
      initialCluster: `kapi-test=${peerUrl}`,
      label: `etcd on ${client}`,
      progressNotifyInterval: opts.progressNotifyInterval,
      extraArgs: opts.extraArgs,
    }),
  );
  return Object.assign(server, { endpoint: client });
}
