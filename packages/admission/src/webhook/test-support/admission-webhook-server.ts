import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { makeTestCA, type TestCA } from '../../../../authn/src/test-support/test-ca.ts';

/** One AdmissionReview a test webhook received: the parsed body and the request's path (with its query). */
export interface ReceivedReview {
  path: string;
  servername: string | undefined;
  /** The CN of the client certificate the caller presented (verified against the server's client CA). */
  clientCN: string | undefined;
  authorization: string | undefined;
  review: { apiVersion: string; kind: string; request: Record<string, unknown> & { uid: string } };
}

/**
 * What a test webhook answers: the AdmissionReview's response (uid filled in), or raw HTTP; 'reset' drops the
 * connection, undefined never answers.
 */
export type WebhookReply =
  | { response: Record<string, unknown>; apiVersion?: string; kind?: string }
  | { code: number; body: string; contentType?: string }
  | 'reset'
  | undefined;

/**
 * A real admission webhook for tests: HTTPS on 127.0.0.1 with a certificate of its own test CA (with DNS names for
 * Service-style server names), answering each AdmissionReview with `reply`. `caBundle` is what a webhook's
 * clientConfig.caBundle carries (base64 of the PEM).
 */
export class AdmissionWebhookServer {
  readonly received: ReceivedReview[] = [];
  reply: (r: ReceivedReview) => WebhookReply | Promise<WebhookReply> = () => ({ response: { allowed: true } });
  #server!: Server;
  #ca!: TestCA;
  #waiters: { count: number; resolve: () => void }[] = [];
  url = '';
  caBundle = '';
  /** TLS connections accepted so far (kept-alive clients reuse theirs). */
  connections = 0;

  /** Starts the server; `clientCA` (PEM) is the CA whose client certificates it verifies (asked for, not required). */
  static async start(dnsNames: readonly string[] = [], clientCA?: string): Promise<AdmissionWebhookServer> {
    const s = new AdmissionWebhookServer();
    s.#ca = await makeTestCA('admission-webhook-test-ca');
    const tls = await s.#ca.issue('CN=webhook', 'server', dnsNames);
    s.caBundle = Buffer.from(s.#ca.pem).toString('base64');
    const clientAuth = clientCA ? { ca: clientCA, requestCert: true, rejectUnauthorized: false } : {};
    s.#server = createServer({ ...tls, ...clientAuth }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const received: ReceivedReview = {
          path: req.url ?? '',
          servername: (req.socket as TLSSocket).servername || undefined,
          clientCN: (req.socket as TLSSocket).authorized ? String((req.socket as TLSSocket).getPeerCertificate().subject.CN) : undefined,
          authorization: req.headers.authorization,
          review: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        };
        s.received.push(received);
        for (const w of s.#waiters.filter((w) => s.received.length >= w.count)) w.resolve();
        s.#waiters = s.#waiters.filter((w) => s.received.length < w.count);
        const reply = await s.reply(received);
        if (reply === undefined) return; // hangs until the client gives up
        if (reply === 'reset') {
          req.socket.destroy(); // the connection drops without an answer
          return;
        }
        if ('code' in reply) {
          res.writeHead(reply.code, { 'content-type': reply.contentType ?? 'application/json' });
          res.end(reply.body);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            apiVersion: reply.apiVersion ?? received.review.apiVersion,
            kind: reply.kind ?? 'AdmissionReview',
            response: { uid: received.review.request.uid, ...reply.response },
          }),
        );
      });
    });
    s.#server.on('secureConnection', () => {
      s.connections++;
    });
    await new Promise<void>((r) => s.#server.listen(0, '127.0.0.1', r));
    s.url = `https://127.0.0.1:${(s.#server.address() as AddressInfo).port}`;
    return s;
  }

  /** Resolves once `count` reviews have arrived in all. */
  receivedCount(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  /** A second CA's bundle: a client trusting it must refuse this server. */
  async otherCABundle(): Promise<string> {
    return Buffer.from((await makeTestCA('other-ca')).pem).toString('base64');
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((r) => this.#server.close(() => r()));
  }
}

/** base64 of a JSON patch, as a webhook's response.patch carries it. */
export const jsonPatch = (ops: readonly Record<string, unknown>[]): string => Buffer.from(JSON.stringify(ops)).toString('base64');
