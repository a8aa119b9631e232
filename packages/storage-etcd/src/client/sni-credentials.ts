import { isIP } from 'node:net';
import { connect, type SecureContext } from 'node:tls';
import * as grpc from '@grpc/grpc-js';

type CreateSecureConnector = grpc.ChannelCredentials['_createSecureConnector'];
type SecureConnector = ReturnType<CreateSecureConnector>;
type GrpcUri = Parameters<CreateSecureConnector>[0];

/**
 * gRPC TLS credentials that send the endpoint's host as the TLS server name (SNI) only when it is a DNS name.
 *
 * grpc-js's own (`credentials.createSsl`) set `servername` to the target's host whatever it is, so dialling
 * `https://127.0.0.1:2379` puts an IP address in SNI, which RFC 6066 forbids, and Node prints DEP0123 once per process
 * (grpc/grpc-node#1919). Go's crypto/tls (etcd's clientv3, kube-apiserver) sends no SNI for an IP address; so does this.
 * The certificate check is unchanged: Node verifies the peer against `servername`, else `host`, so an IP host is still
 * checked against the certificate's IP SANs (and only those) and a DNS name against its DNS SANs, by
 * `tls.checkServerIdentity`, after the chain is verified against the CA (`rejectUnauthorized`, on by default).
 * Otherwise this connects as grpc-js's does: the one secure context for every member, HTTP/2 by ALPN.
 */
export class SNICredentials extends grpc.ChannelCredentials {
  readonly #context: SecureContext;

  constructor(context: SecureContext) {
    super();
    this.#context = context;
  }

  _isSecure(): boolean {
    return true;
  }

  _equals(other: grpc.ChannelCredentials): boolean {
    return other === this;
  }

  _createSecureConnector(target: GrpcUri, _options: grpc.ChannelOptions, callCredentials?: grpc.CallCredentials): SecureConnector {
    const host = hostOf(target.path);
    const secureContext = this.#context;
    return {
      connect: (socket) =>
        new Promise((resolve, reject) => {
          const options = { socket, secureContext, host, ALPNProtocols: ['h2'], ...(isIP(host) ? {} : { servername: host }) };
          const tlsSocket = connect(options, () => {
            // Verification failures already ended the handshake with an error (rejectUnauthorized); this is a backstop.
            if (tlsSocket.authorized) resolve({ socket: tlsSocket, secure: true });
            else reject(tlsSocket.authorizationError);
          });
          tlsSocket.on('error', reject);
        }),
      waitForReady: () => Promise.resolve(),
      getCallCredentials: () => callCredentials ?? grpc.credentials.createEmpty(),
      destroy: () => {},
    };
  }
}

/** The host of a gRPC target's `host:port` (`[v6]:port` for IPv6), as grpc-js takes it. */
export function hostOf(hostPort: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d*)?$/.exec(hostPort);
  if (bracketed) return bracketed[1] as string;
  const colon = hostPort.lastIndexOf(':');
  // More than one colon without brackets: a bare IPv6 address without a port.
  return colon >= 0 && hostPort.indexOf(':') === colon ? hostPort.slice(0, colon) : hostPort;
}
