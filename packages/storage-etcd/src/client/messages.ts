/**
 * The etcd messages this package sends and receives, as @grpc/proto-loader gives them with the options in
 * `etcd-client.ts` (field names as in the .proto, int64 as number, enums as strings, defaults filled in).
 * Revisions fit a double (2^53); lease IDs are chosen by this package so they do too.
 */

export interface ResponseHeader {
  revision: number;
}

export interface KeyValue {
  key: Buffer;
  create_revision: number;
  mod_revision: number;
  version: number;
  value: Buffer;
  lease: number;
}

export interface RangeRequest {
  key: Buffer;
  range_end?: Buffer;
  limit?: number;
  revision?: number;
  count_only?: boolean;
  keys_only?: boolean;
}

export interface RangeResponse {
  header: ResponseHeader;
  kvs: KeyValue[];
  more: boolean;
  count: number;
}

export interface PutRequest {
  key: Buffer;
  value: Buffer;
  lease?: number;
  prev_kv?: boolean;
}

export interface DeleteRangeRequest {
  key: Buffer;
  range_end?: Buffer;
  prev_kv?: boolean;
}

export interface DeleteRangeResponse {
  header: ResponseHeader;
  deleted: number;
  prev_kvs: KeyValue[];
}

export type RequestOp = { request_range: RangeRequest } | { request_put: PutRequest } | { request_delete_range: DeleteRangeRequest };

export interface ResponseOp {
  response?: 'response_range' | 'response_put' | 'response_delete_range';
  response_range?: RangeResponse;
  response_delete_range?: DeleteRangeResponse;
}

export type Compare =
  | { key: Buffer; target: 'CREATE'; result: 'EQUAL'; create_revision: number }
  | { key: Buffer; target: 'MOD'; result: 'EQUAL'; mod_revision: number };

export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure?: RequestOp[];
}

export interface TxnResponse {
  header: ResponseHeader;
  succeeded: boolean;
  responses: ResponseOp[];
}

export interface CompactionRequest {
  revision: number;
}

export interface LeaseGrantRequest {
  TTL: number;
  ID: number;
}

export interface LeaseGrantResponse {
  header: ResponseHeader;
  ID: number;
  TTL: number;
  error: string;
}

export interface WatchCreateRequest {
  key: Buffer;
  range_end?: Buffer;
  start_revision: number;
  progress_notify: boolean;
  prev_kv: boolean;
  watch_id: number;
}

export type WatchRequest =
  | { create_request: WatchCreateRequest }
  | { cancel_request: { watch_id: number } }
  | { progress_request: Record<string, never> };

export interface WatchEventMessage {
  type: 'PUT' | 'DELETE';
  kv: KeyValue;
  /** Absent on creation, or when the previous version was already compacted. */
  prev_kv: KeyValue | null;
}

export interface WatchResponse {
  header: ResponseHeader;
  watch_id: number;
  created: boolean;
  canceled: boolean;
  compact_revision: number;
  cancel_reason: string;
  events: WatchEventMessage[];
}

export interface StatusResponse {
  header: ResponseHeader;
  /** The etcd server's version, e.g. "3.4.23". */
  version: string;
}
