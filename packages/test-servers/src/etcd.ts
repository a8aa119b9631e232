import { etcdHTTP } from './etcd-http.ts';
import { type EtcdTLS, type EtcdTLSFiles, type EtcdTLSOptions, etcdTLSFiles } from './etcd-tls.ts';
import { freePort } from './free-port.ts';
import { type ProcessSpec, poll, startProcess, type TestServer } from './process-server.ts';

export interface EtcdServer extends TestServer {
  /** `http://127.0.0.1:<port>` (`https://` with `tls`), for a client. */
  readonly endpoint: string;
  /** With the `tls` option: the CA a client trusts and a client certificate etcd accepts. */
  readonly tls?: EtcdTLS;
}

export interface EtcdOptions {
  /** etcd's --experimental-watch-progress-notify-interval (default 100ms, so progress tests are quick). */
  progressNotifyInterval?: string;
  /**
   * Serve clients over TLS (https://) with a CA and certificates made at run time, requiring a client certificate
   * (--client-cert-auth); `true` makes them all, an object supplies some (a serving certificate to test, say).
   */
  tls?: true | EtcdTLSOptions;
  extraArgs?: string[];
}

/** One etcd member to start: its name and URLs, the cluster it belongs to and the flags only a cluster adds. */
export interface EtcdMemberSpec {
  name: string;
  host: string;
  /** The client port, in `client`. */
  port: number;
  /** `http://host:port` (`https://` with `tls`) for clients. */
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
  /** Client TLS: etcd's flags, and the credentials the readiness poll presents. */
  tls?: EtcdTLSFiles | undefined;
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
      ...(m.tls?.args ?? []),
      ...(m.extraArgs ?? []),
    ],
    ready: (deadline) =>
      poll(m.label, deadline, async () => {
        const { json } = await etcdHTTP(m.client, '/health', m.tls);
        return (json as { health?: string }).health === 'true';
      }),
  };
}

/** Starts a single-member etcd on free loopback client and peer ports with a temp data dir. */
export async function startEtcd(opts: EtcdOptions = {}): Promise<EtcdServer> {
  const host = '127.0.0.1';
  const port = await freePort();
  const peer = await freePort();
  const tls = opts.tls ? await etcdTLSFiles(opts.tls === true ? {} : opts.tls) : undefined;
  const client = `${tls ? 'https' : 'http'}://${host}:${port}`;
  const peerUrl = `http://${host}:${peer}`;
  const started = startProcess(
    etcdMemberProcess({
      name: 'kapi-test',
      host,
      port,
      client,
      peer: peerUrl,
      initialCluster: `kapi-test=${peerUrl}`,
      label: `etcd on ${client}`,
      progressNotifyInterval: opts.progressNotifyInterval,
      tls,
      extraArgs: opts.extraArgs,
    }),
  );
  const server = await started.catch((err: unknown) => {
    tls?.remove();
    throw err;
  });
  if (!tls) return Object.assign(server, { endpoint: client });
  const stop = server.stop;
  return Object.assign(server, {
    endpoint: client,
    tls: { ca: tls.ca, client: tls.client },
    stop: async () => {
      await stop();
      tls.remove();
    },
  });
}
