import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { loadSync, type MethodDefinition, type PackageDefinition } from '@grpc/proto-loader';
import { etcdEndpoint } from './etcd-endpoint.ts';
import type {
  CompactionRequest,
  LeaseGrantRequest,
  LeaseGrantResponse,
  RangeRequest,
  RangeResponse,
  StatusResponse,
  TxnRequest,
  TxnResponse,
  WatchRequest,
  WatchResponse,
} from './messages.ts';
import { mayRetry, noMemberReachable, outcomeUnknown, type RetryKind, retryBackoffMs, WriteOutcomeUnknownError } from './retry-policy.ts';
import { channelCredentials, type EtcdTLSOptions } from './tls-credentials.ts';
import { explainTLSFailure } from './tls-failure.ts';

export interface EtcdClientOptions {
  /** `http://host:port`, or `https://host:port` for TLS (all one or the other). */
  endpoints: readonly string[];
  /** Deadline of every unary call. */
  requestTimeoutMs: number;
  /** CA, client certificate and key for https:// endpoints. */
  tls?: EtcdTLSOptions | undefined;
}

export type WatchStream = grpc.ClientDuplexStream<WatchRequest, WatchResponse>;

type Method<Req, Res> = MethodDefinition<Req, Res>;

interface Methods {
  range: Method<RangeRequest, RangeResponse>;
  txn: Method<TxnRequest, TxnResponse>;
  compact: Method<CompactionRequest, unknown>;
  leaseGrant: Method<LeaseGrantRequest, LeaseGrantResponse>;
  leaseRevoke: Method<{ ID: number }, unknown>;
  status: Method<Record<string, never>, StatusResponse>;
  watch: Method<WatchRequest, WatchResponse>;
}

let methods: Methods | undefined;

/** The proto ships in the package (`proto/etcd.proto`, beside src/ and dist/); parsed once per process. */
function loadMethods(): Methods {
  if (methods) return methods;
  const def: PackageDefinition = loadSync(fileURLToPath(new URL('../../proto/etcd.proto', import.meta.url)), {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const method = <Req, Res>(service: string, name: string): Method<Req, Res> => {
    const m = (def[`etcdserverpb.${service}`] as Record<string, unknown> | undefined)?.[name];
    if (!m) throw new Error(`etcd.proto has no ${service}.${name}`);
    return m as Method<Req, Res>;
  };
  methods = {
    range: method('KV', 'Range'),
    txn: method('KV', 'Txn'),
    compact: method('KV', 'Compact'),
    leaseGrant: method('Lease', 'LeaseGrant'),
    leaseRevoke: method('Lease', 'LeaseRevoke'),
    status: method('Maintenance', 'Status'),
    watch: method('Watch', 'Watch'),
  };
  return methods;
}

/** Metadata asking a member to refuse a call while it has no leader (clientv3's WithRequireLeader). */
function requireLeader(): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set('hasleader', 'true');
  return md;
}

/** Channel options of every member's connection. */
const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  // A list may be far larger than gRPC's 4 MiB default (etcd itself sends up to 2 GiB).
  'grpc.max_receive_message_length': -1,
  // Reconnect soon after a restart instead of backing off to gRPC's 2-minute ceiling.
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1000,
  // Notice a peer that vanished without closing the connection (etcd's server allows pings every 5 s).
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
};

/**
 * A minimal etcd v3 client: the unary calls EtcdStorage needs and raw watch streams, over one gRPC channel per
 * endpoint (kube-apiserver's --etcd-servers; each a name or an address, resolved by gRPC). Calls go to one member
 * until it fails them, then to the next in the list. Each call has one deadline over all its attempts and never waits
 * for a connection that is not there: a member that cannot be reached is skipped at once, and when none can the call
 * fails at once with UNAVAILABLE. A call that fails because its member died or could not serve it (no leader, leader
 * changed) is sent again to the next member, as clientv3 does (see retry-policy.ts): reads always, a Txn only when
 * etcd surely did not apply it, else it fails with WriteOutcomeUnknownError. Every call and watch requires a leader,
 * so a member cut off from the others refuses it instead of stalling. Errors are grpc-js ServiceErrors (or
 * WriteOutcomeUnknownError); `etcd-errors.ts` gives them meaning.
 */
export class EtcdClient {
  readonly #channels: grpc.Client[];
  /** Each member's URL as given, for error messages. */
  readonly #urls: readonly string[];
  /** The members are dialled with TLS (https://): a failed connection may be a failed handshake, said as such. */
  readonly #tls: boolean;
  readonly #methods: Methods;
  readonly #timeoutMs: number;
  /** The member calls go to now. */
  #current = 0;
  /** Open watch streams and the member each is on (only with several members). */
  readonly #streams = new Map<WatchStream, number>();
  /** The member every watch stream was opened on, for the errors that break it. */
  readonly #streamMembers = new WeakMap<WatchStream, number>();

  constructor(options: EtcdClientOptions) {
    if (options.endpoints.length === 0) throw new Error('EtcdStorage: at least one endpoint is required');
    const endpoints = options.endpoints.map(etcdEndpoint);
    // One set of credentials (one TLS context) shared by every member's channel.
    const credentials = channelCredentials(endpoints, options.tls);
    this.#urls = endpoints.map((e) => e.url);
    this.#tls = endpoints.some((e) => e.tls);
    this.#methods = loadMethods();
    this.#timeoutMs = options.requestTimeoutMs;
    this.#channels = endpoints.map((e) => new grpc.Client(e.target, credentials, CHANNEL_OPTIONS));
  }

  range(req: RangeRequest): Promise<RangeResponse> {
    return this.#call(this.#methods.range, req, 'repeatable');
  }

  txn(req: TxnRequest): Promise<TxnResponse> {
    return this.#call(this.#methods.txn, req, 'mutation');
  }

  /** A compaction sent twice is harmless: the second finds the revision compacted, which EtcdStorage accepts. */
  async compact(req: CompactionRequest): Promise<void> {
    await this.#call(this.#methods.compact, req, 'repeatable');
  }

  /**
   * Grants a lease with the ID in `req` (it must have one): repeatable, since a grant that did happen is then refused
   * with "lease already exists", which on a retry means the lease is ours.
   */
  async leaseGrant(req: LeaseGrantRequest): Promise<LeaseGrantResponse> {
    let sent = 0;
    try {
      return await this.#call(this.#methods.leaseGrant, req, 'repeatable', () => sent++);
    } catch (err) {
      const text = String((err as { details?: unknown })?.details ?? '');
      if (sent > 1 && text.includes('lease already exists')) return { header: { revision: 0 }, ID: req.ID, TTL: req.TTL, error: '' };
      throw err;
    }
  }

  async leaseRevoke(id: number): Promise<void> {
    await this.#call(this.#methods.leaseRevoke, { ID: id }, 'repeatable');
  }

  /** The status of the member calls go to now (its version). */
  status(): Promise<StatusResponse> {
    return this.#call(this.#methods.status, {}, 'repeatable');
  }

  /** A new bidirectional Watch stream (no deadline: it lives until cancelled or broken; ended by a member without a leader). */
  watch(): WatchStream {
    const m = this.#methods.watch;
    const member = this.#current;
    const stream = (this.#channels[member] as grpc.Client).makeBidiStreamRequest(
      m.path,
      m.requestSerialize,
      m.responseDeserialize,
      requireLeader(),
    );
    this.#streamMembers.set(stream, member);
    if (this.#channels.length > 1) {
      // A stream its member broke (gone, or without a leader): the watcher re-opens it on the next member.
      stream.on('error', (err) => (err as { code?: unknown }).code === grpc.status.UNAVAILABLE && this.#leave(member));
      this.#streams.set(stream, member);
      stream.on('status', () => this.#streams.delete(stream));
    }
    return stream;
  }

  /**
   * What broke `stream`, as calls say it: a stream that could not connect because the TLS handshake with its member
   * failed gets the same explanation (EtcdTLSError) as a call that failed so; anything else is returned as it is.
   */
  watchError(stream: WatchStream, err: unknown): unknown {
    const member = this.#streamMembers.get(stream);
    return this.#tls && member !== undefined ? explainTLSFailure(err, this.#urls[member] as string) : err;
  }

  /**
   * Cancels the watch streams on `member`, which let a call pass its deadline (hung, or cut off without the connection
   * closing): their watchers re-open them on the member calls go to now instead of waiting for keepalive to notice.
   */
  #abandon(member: number): void {
    for (const [stream, on] of this.#streams) {
      if (on !== member) continue;
      this.#streams.delete(stream);
      stream.cancel();
    }
  }

  close(): void {
    for (const c of this.#channels) c.close();
  }

  /** Calls go to the next member after `member` failed one (unless another call already moved them on). */
  #leave(member: number): void {
    if (this.#current === member) this.#current = (member + 1) % this.#channels.length;
  }

  /** Sends the call, again after a failure `kind` allows to retry, until it succeeds or its deadline is near. */
  async #call<Req, Res>(m: Method<Req, Res>, req: Req, kind: RetryKind, onSend?: () => void): Promise<Res> {
    const deadline = Date.now() + this.#timeoutMs;
    const members = this.#channels.length;
    // Members in a row found unreachable by this call: when that is all of them, it fails at once.
    let unreachable = 0;
    for (let attempt = 0; ; attempt++) {
      const member = this.#current;
      onSend?.();
      try {
        return await this.#unary(this.#channels[member] as grpc.Client, m, req, deadline);
      } catch (err) {
        if (noMemberReachable(err)) {
          // Never sent, so safe to send elsewhere, whatever the call. A failed TLS handshake is said as such.
          if (++unreachable >= members) throw this.#tls ? explainTLSFailure(err, this.#urls[member] as string) : err;
          this.#leave(member);
          continue;
        }
        unreachable = 0;
        // The member died, hung or could not serve it: whether or not this call is sent again, the next goes elsewhere.
        const code = (err as { code?: unknown }).code;
        if (members > 1 && (code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED)) this.#leave(member);
        if (members > 1 && code === grpc.status.DEADLINE_EXCEEDED) this.#abandon(member);
        const wait = retryBackoffMs(attempt);
        if (!mayRetry(err, kind) || Date.now() + wait >= deadline) {
          throw kind === 'mutation' && outcomeUnknown(err) ? new WriteOutcomeUnknownError(err) : err;
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  #unary<Req, Res>(channel: grpc.Client, m: Method<Req, Res>, req: Req, deadline: number): Promise<Res> {
    return new Promise((resolve, reject) => {
      channel.makeUnaryRequest(m.path, m.requestSerialize, m.responseDeserialize, req, requireLeader(), { deadline }, (err, res) =>
        err || res === undefined ? reject(err ?? new Error(`${m.path}: empty response`)) : resolve(res),
      );
    });
  }
}
