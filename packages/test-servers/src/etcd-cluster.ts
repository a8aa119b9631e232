import { etcdMemberProcess } from './etcd.ts';
import { etcdHTTP } from './etcd-http.ts';
import { type EtcdTLS, type EtcdTLSOptions, etcdTLSFiles } from './etcd-tls.ts';
import { freePort } from './free-port.ts';
import { type ProcessHandle, startProcess } from './process-server.ts';

/** One member of a test etcd cluster: a real etcd process with its own data dir. */
export interface EtcdMember {
  readonly name: string;
  /** `http://127.0.0.1:<port>` (`https://` with `tls`), for a client. */
  readonly clientURL: string;
  /** The PID of the running process (undefined while stopped or killed). */
  readonly pid: number | undefined;
  /** Stops the member cleanly (SIGTERM); its data dir stays for start(). */
  stop(): Promise<void>;
  /** Kills the member without a clean shutdown (SIGKILL), as a crash would; its data dir stays for start(). */
  kill(): Promise<void>;
  /** Starts the member again with the same data dir; resolves once it is healthy (the cluster has a quorum). */
  start(): Promise<void>;
}

export interface EtcdCluster {
  /** Every member's client URL, in member order (what `--etcd-servers` takes). */
  readonly endpoints: string[];
  readonly members: EtcdMember[];
  /** With the `tls` option: the CA a client trusts and a client certificate every member accepts. */
  readonly tls?: EtcdTLS;
  /** The member that is leader now (asked through the maintenance Status API of the members that answer). */
  leader(): Promise<EtcdMember>;
  /** Stops every member and removes their data. */
  stop(): Promise<void>;
}

export interface EtcdClusterOptions {
  /** Number of members (default 3). */
  members?: number;
  /** etcd's --experimental-watch-progress-notify-interval (default 100ms, as startEtcd). */
  progressNotifyInterval?: string;
  /** Serve clients over TLS with client-certificate auth, as startEtcd's `tls` (one CA and serving certificate for all). */
  tls?: true | EtcdTLSOptions;
  extraArgs?: string[];
}

interface StatusResponse {
  header?: { member_id?: string };
  leader?: string;
}

async function status(clientURL: string, tls: EtcdTLS | undefined): Promise<StatusResponse> {
  const res = await etcdHTTP(clientURL, '/v3/maintenance/status', tls, '{}');
  if (res.status !== 200) throw new Error(`status ${res.status} from ${clientURL}`);
  return res.json as StatusResponse;
}

/**
 * Starts an etcd cluster of real processes on free loopback ports (--initial-cluster), each member with its own
 * data dir; a member can be killed, stopped and started again, as the HA tests need.
 */
export async function startEtcdCluster(opts: EtcdClusterOptions = {}): Promise<EtcdCluster> {
  const n = opts.members ?? 3;
  if (!Number.isInteger(n) || n < 1) throw new Error(`startEtcdCluster: members must be a positive integer, got ${n}`);
  const host = '127.0.0.1';
  const tls = opts.tls ? await etcdTLSFiles(opts.tls === true ? {} : opts.tls) : undefined;
  const scheme = tls ? 'https' : 'http';
  const specs: { name: string; port: number; client: string; peer: string }[] = [];
  for (let i = 0; i < n; i++) {
    const port = await freePort();
    specs.push({ name: `kapi-m${i}`, port, client: `${scheme}://${host}:${port}`, peer: `http://${host}:${await freePort()}` });
  }
  const initialCluster = specs.map((s) => `${s.name}=${s.peer}`).join(',');
  // A unique token keeps members of two clusters started at once from ever joining each other.
  const token = `kapi-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;

  // All members start at once: each one is healthy only when a quorum of them is up.
  const started = await Promise.allSettled(
    specs.map((s) =>
      startProcess(
        etcdMemberProcess({
          name: s.name,
          host,
          port: s.port,
          client: s.client,
          peer: s.peer,
          initialCluster,
          // On a restart etcd reads its membership from the data dir; --initial-cluster-state new only matters the
          // first time. Quicker elections than the defaults (100/1000ms) so a killed leader is replaced within a test's time.
          clusterArgs: ['--initial-cluster-token', token, '--heartbeat-interval', '50', '--election-timeout', '500'],
          label: `etcd member ${s.name} on ${s.client}`,
          progressNotifyInterval: opts.progressNotifyInterval,
          tls,
          extraArgs: opts.extraArgs,
        }),
      ),
    ),
  );
  const handles: ProcessHandle[] = [];
  for (const r of started) if (r.status === 'fulfilled') handles.push(r.value);
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    for (const h of handles) await h.stop();
    tls?.remove();
    throw failed.reason;
  }

  const members: EtcdMember[] = specs.map((s, i) => {
    const h = handles[i] as ProcessHandle;
    return {
      name: s.name,
      clientURL: s.client,
      get pid() {
        return h.pid;
      },
      stop: () => h.terminate(),
      kill: () => h.kill(),
      start: () => h.start(),
    };
  });

  return {
    endpoints: specs.map((s) => s.client),
    members,
    ...(tls ? { tls: { ca: tls.ca, client: tls.client } } : {}),
    async leader() {
      // Right after a leader dies the others may not agree yet: ask until a live member names a live leader.
      const deadline = Date.now() + 15_000;
      let last: unknown;
      while (Date.now() < deadline) {
        const live = members.filter((m) => m.pid !== undefined);
        const answers = await Promise.allSettled(live.map((m) => status(m.clientURL, tls)));
        const ids = new Map<string, EtcdMember>();
        answers.forEach((a, i) => {
          if (a.status === 'fulfilled' && a.value.header?.member_id) ids.set(a.value.header.member_id, live[i] as EtcdMember);
          else if (a.status === 'rejected') last = a.reason;
        });
        for (const a of answers) {
          if (a.status !== 'fulfilled' || !a.value.leader || a.value.leader === '0') continue;
          const m = ids.get(a.value.leader);
          if (m) return m;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no etcd leader among the live members${last instanceof Error ? `: ${last.message}` : ''}`);
    },
    async stop() {
      await Promise.all(handles.map((h) => h.stop()));
      tls?.remove();
    },
  };
}
