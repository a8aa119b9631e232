import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { loadSync, type MethodDefinition, type PackageDefinition } from '@grpc/proto-loader';
import { grpcTarget } from './grpc-target.ts';
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

export interface EtcdClientOptions {
  endpoints: readonly string[];
  /** Deadline of every unary call. */
  requestTimeoutMs: number;
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

/**
 * A minimal etcd v3 client: one gRPC channel, the unary calls EtcdStorage needs (each with a deadline, never waiting
 * for a connection that is not there: a down server fails the call at once with UNAVAILABLE) and raw watch streams.
 * Errors are grpc-js ServiceErrors; `etcd-errors.ts` gives them meaning.
 */
export class EtcdClient {
  readonly #client: grpc.Client;
  readonly #methods: Methods;
  readonly #timeoutMs: number;

  constructor(options: EtcdClientOptions) {
    this.#methods = loadMethods();
    this.#timeoutMs = options.requestTimeoutMs;
    this.#client = new grpc.Client(grpcTarget(options.endpoints), grpc.credentials.createInsecure(), {
      // A list may be far larger than gRPC's 4 MiB default (etcd itself sends up to 2 GiB).
      'grpc.max_receive_message_length': -1,
      // Reconnect soon after a restart instead of backing off to gRPC's 2-minute ceiling.
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
      // Notice a peer that vanished without closing the connection (etcd's server allows pings every 5 s).
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
    });
  }

  range(req: RangeRequest): Promise<RangeResponse> {
    return this.#unary(this.#methods.range, req);
  }

  txn(req: TxnRequest): Promise<TxnResponse> {
    return this.#unary(this.#methods.txn, req);
  }

  async compact(req: CompactionRequest): Promise<void> {
    await this.#unary(this.#methods.compact, req);
  }

  leaseGrant(req: LeaseGrantRequest): Promise<LeaseGrantResponse> {
    return this.#unary(this.#methods.leaseGrant, req);
  }

  async leaseRevoke(id: number): Promise<void> {
    await this.#unary(this.#methods.leaseRevoke, { ID: id });
  }

  /** The status of the member this channel talks to (its version). */
  status(): Promise<StatusResponse> {
    return this.#unary(this.#methods.status, {});
  }

  /** A new bidirectional Watch stream (no deadline: it lives until cancelled or broken). */
  watch(): WatchStream {
    const m = this.#methods.watch;
    return this.#client.makeBidiStreamRequest(m.path, m.requestSerialize, m.responseDeserialize, new grpc.Metadata());
  }

  close(): void {
    this.#client.close();
  }

  #unary<Req, Res>(m: Method<Req, Res>, req: Req): Promise<Res> {
    return new Promise((resolve, reject) => {
      this.#client.makeUnaryRequest(
        m.path,
        m.requestSerialize,
        m.responseDeserialize,
        req,
        new grpc.Metadata(),
        { deadline: Date.now() + this.#timeoutMs },
        (err, res) => (err || res === undefined ? reject(err ?? new Error(`${m.path}: empty response`)) : resolve(res)),
      );
    });
  }
}
