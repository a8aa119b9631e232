import { createSecureContext } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import type { EtcdEndpoint } from './etcd-endpoint.ts';
import { SNICredentials } from './sni-credentials.ts';

/**
 * TLS to etcd's client port, as kube-apiserver's --etcd-cafile, --etcd-certfile and --etcd-keyfile (the PEM texts,
 * not file names). Used with `https://` endpoints.
 */
export interface EtcdTLSOptions {
  /** CA certificate(s) that etcd's serving certificates chain to (a PEM bundle); default: Node's trusted roots. */
  ca?: string | Buffer;
  /** Client certificate (PEM, optionally followed by intermediates) for etcd's --client-cert-auth; needs `key`. */
  cert?: string | Buffer;
  /** The client certificate's private key (PEM). */
  key?: string | Buffer;
}

const pem = (v: string | Buffer | undefined): Buffer | undefined => (v === undefined ? undefined : Buffer.from(v));

/**
 * The gRPC credentials every member's channel uses: TLS when the endpoints are https://, plaintext when http://.
 * All members speak one or the other (a TLS etcd serves every member with TLS). Bad PEM, a key that does not match
 * its certificate, or TLS options for plaintext endpoints fail here, when the store is made, not on the first call.
 */
export function channelCredentials(endpoints: readonly EtcdEndpoint[], tls: EtcdTLSOptions | undefined): grpc.ChannelCredentials {
  const secure = endpoints.filter((e) => e.tls);
  if (secure.length > 0 && secure.length < endpoints.length) {
    throw new Error(
      `EtcdStorage: endpoints mix https:// and http:// (${endpoints.map((e) => e.url).join(', ')}); every member is dialled the same way`,
    );
  }
  if (secure.length === 0) {
    if (tls) throw new Error('EtcdStorage: tls options were given for http:// endpoints; use https:// endpoints to connect with TLS');
    return grpc.credentials.createInsecure();
  }
  if ((tls?.cert === undefined) !== (tls?.key === undefined)) {
    throw new Error('EtcdStorage: tls.cert and tls.key go together (a client certificate and its private key)');
  }
  try {
    // What grpc-js's createSsl makes (no ca: Node's trusted roots), but connected without an IP address as SNI.
    return new SNICredentials(createSecureContext({ ca: pem(tls?.ca), cert: pem(tls?.cert), key: pem(tls?.key) }));
  } catch (err) {
    throw new Error(`EtcdStorage: invalid tls options: ${(err as Error).message}`, { cause: err });
  }
}
