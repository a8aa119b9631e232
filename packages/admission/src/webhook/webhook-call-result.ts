import type { ClientRequest, IncomingMessage } from 'node:http';
import { isIP as isIPAddress } from 'node:net';
import { goQuote, StatusError } from '@kapi/apimachinery';

/**
 * What one webhook call came to, worded as kube-apiserver's webhook clients (client-go's REST client over Go's net/http)
 * word it: the parsed JSON of a 2xx answer, a Status answer's message, NewGenericServerResponse for other error
 * answers, Go's words for transport failures. Admission webhooks and CRD conversion webhooks both call through it.
 */

/**
 * A call that got no usable answer. `status` is the error answer's Status when the webhook answered non-2xx (kube's
 * client-go StatusError); undefined for a transport failure, where the caller picks kube's status.
 */
export class WebhookCallFailure extends Error {
  readonly status: StatusError | undefined;
  constructor(message: string, status?: StatusError) {
    super(message);
    this.name = 'WebhookCallFailure';
    this.status = status;
  }
}

/** client-go's errors.NewGenericServerResponse wording for an error answer that is not a Status. */
function genericServerResponse(code: number, serverMessage: string): string {
  switch (code) {
    case 409:
      return 'the server reported a conflict';
    case 404:
      return 'the server could not find the requested resource';
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
    case 415:
      return serverMessage;
    case 406:
      return serverMessage === '' || serverMessage === 'unknown'
        ? 'the server was unable to respond with a content type that the client supports'
        : serverMessage;
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
  }
  if (code >= 500) return `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`;
  return `the server responded with the status code ${code} but did not return more information`;
}

/** A request's or response's 'error': Node's errno error, with what a TLS or dial failure carries. */
export type TransportError = NodeJS.ErrnoException & {
  address?: string;
  port?: number;
  host?: string;
  cert?: { subjectaltname?: string };
};

/** crypto/x509's HostnameError: the names the certificate is valid for (IP SANs for an IP host, else DNS SANs). */
function hostnameMessage(host: string, subjectAltName: string): string {
  const isIP = isIPAddress(host);
  const prefix = isIP ? 'IP Address:' : 'DNS:';
  const valid = subjectAltName
    .split(', ')
    .filter((s) => s.startsWith(prefix))
    .map((s) => s.slice(prefix.length));
  if (isIP && valid.length === 0) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
  if (valid.length === 0) return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${valid.join(', ')}, not ${host}`;
}

/**
 * Go's net/http, crypto/tls and context words for the transport failures a webhook call commonly meets; the call's
 * deadline (its AbortSignal's TimeoutError) is context's "deadline exceeded".
 */
export function transportMessage(e: TransportError): string {
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return 'context deadline exceeded';
  switch (e.code) {
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: ${hostnameMessage(e.host ?? '', e.cert?.subjectaltname ?? '')}`;
    case 'ECONNREFUSED':
      return `dial tcp ${e.address}:${e.port}: connect: connection refused`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ECONNRESET':
      return 'EOF';
    case 'ETIMEDOUT':
      return 'context deadline exceeded';
    default:
      return e.message;
  }
}

/**
 * Reads the answer to `req` (POSTed as `where`, e.g. `Post "<url>"`) as client-go's transformResponse does: resolves
 * with the parsed JSON of a 2xx answer; rejects with a {@link WebhookCallFailure} for an error answer (carrying its
 * Status), an unparsable 2xx body, a broken response stream, or an answer longer than `maxResponseBytes` (refused so a
 * broken webhook cannot fill the heap).
 */
export function readWebhookAnswer(req: ClientRequest, res: IncomingMessage, where: string, maxResponseBytes: number): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxResponseBytes) {
        req.destroy();
        reject(new WebhookCallFailure(`${where}: the webhook answered more than ${maxResponseBytes} bytes`));
      } else chunks.push(c);
    });
    res.on('error', (e: TransportError) => reject(new WebhookCallFailure(`${where}: ${transportMessage(e)}`)));
    res.on('end', () => {
      const code = res.statusCode ?? 0;
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      let parseError: string | undefined;
      try {
        json = JSON.parse(text);
      } catch (err) {
        parseError = (err as Error).message;
      }
      if (code >= 200 && code <= 299) {
        if (parseError !== undefined) reject(new WebhookCallFailure(`couldn't get version/kind; json parse error: ${parseError}`));
        else resolve(json);
        return;
      }
      // client-go: an error answer that decodes as a Status is that Status; anything else is a generic error.
      const s = json as { kind?: unknown; apiVersion?: unknown; message?: unknown; reason?: unknown } | undefined;
      let message: string;
      if (s && typeof s === 'object' && s.kind === 'Status' && s.apiVersion === 'v1')
        message = typeof s.message === 'string' ? s.message : '';
      else {
        const isText = (res.headers['content-type'] ?? '').startsWith('text/');
        message = genericServerResponse(code, isText ? text.slice(0, 1024).trim() : 'unknown');
      }
      const reason = s && typeof s === 'object' && typeof s.reason === 'string' && s.reason ? s.reason : undefined;
      reject(new WebhookCallFailure(message, new StatusError({ code, message, ...(reason ? { reason } : {}) })));
    });
  });
}
