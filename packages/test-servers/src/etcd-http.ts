import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { EtcdTLS } from './etcd-tls.ts';

/**
 * A request to etcd's HTTP endpoints (/health, the v3 JSON gateway) on a member's client URL, over TLS with the test
 * client certificate when the URL is https (fetch cannot present a client certificate). Rejects after a second.
 * The serving certificate is not verified: this asks whether the member is up, and tests start members with
 * serving certificates a client must refuse (expired, for another name).
 */
export function etcdHTTP(
  clientURL: string,
  path: string,
  tls: EtcdTLS | undefined,
  body?: string,
): Promise<{ status: number; json: unknown }> {
  const url = new URL(path, clientURL);
  const https = url.protocol === 'https:';
  if (https && !tls) throw new Error(`etcdHTTP: ${clientURL} is https but no TLS credentials were given`);
  return new Promise((resolve, reject) => {
    const options = {
      method: body === undefined ? 'GET' : 'POST',
      timeout: 1000,
      ...(https && tls ? { cert: tls.client.cert, key: tls.client.key, rejectUnauthorized: false } : {}),
    };
    const req = (https ? httpsRequest : httpRequest)(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        try {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) });
        } catch {
          reject(new Error(`${url}: ${res.statusCode} ${text.slice(0, 200)}`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within 1s`)));
    req.on('error', reject);
    req.end(body);
  });
}
