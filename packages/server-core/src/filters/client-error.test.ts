import { connect as tcp } from 'node:net';
import { connect as tls } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { selfSignedServingCertificate } from '../serving/self-signed.ts';
import { type Serving, serve } from '../serving/serve.ts';
import type { Handler } from './context.ts';
import { type Listening, listen } from './serve.ts';

const ok: Handler = async (ctx) => void ctx.res.end('ok');

let plain: Listening | undefined;
let secure: Serving | undefined;
afterEach(async () => {
  await plain?.close();
  await secure?.shutdown({ gracePeriodMs: 100 });
  plain = secure = undefined;
});

/** Writes `raw` on a fresh connection and resolves with everything the server sent until it closed. */
function exchange(port: number, raw: string, useTLS = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = useTLS
      ? tls({ port, host: '127.0.0.1', rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () => socket.write(raw))
      : tcp(port, '127.0.0.1', () => socket.write(raw));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      text += d;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
  });
}

/** The status code and Status body of a raw HTTP/1.1 response. */
function parse(raw: string): { code: number; body: Record<string, unknown> } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  expect(head).toMatch(/\r\nContent-Type: application\/json\r\n/);
  return { code: Number(head.split(' ')[1]), body: JSON.parse(body) };
}

describe('requests node cannot parse', () => {
  it('headers over the size limit: 431 with a Status body', async () => {
    plain = await listen(ok);
    const port = Number(new URL(plain.url).port);
    const res = parse(await exchange(port, `GET /api/v1/namespaces/default/configmaps/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(res.code).toBe(431);
    expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 431 });
    // A HEAD gets the status line and headers only.
    const head = await exchange(port, `HEAD /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(head).toMatch(/^HTTP\/1\.1 431 [\s\S]*\r\n\r\n$/);
  });

  it('a malformed request line or header: 400 BadRequest Status', async () => {
    plain = await listen(ok);
    const port = Number(new URL(plain.url).port);
    for (const raw of [
      'GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n',
      'GET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n',
      'NOT HTTP\r\n\r\n',
    ]) {
      const res = parse(await exchange(port, raw));
      expect(res.code, JSON.stringify(raw)).toBe(400);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    }
  });

  it('over TLS (the HTTP/2 server’s HTTP/1.1 side) too', async () => {
    const cert = await selfSignedServingCertificate();
    secure = await serve(ok, { tls: cert });
    const port = Number(new URL(secure.url).port);
    const res = parse(await exchange(port, `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, true));
    expect(res.code).toBe(431);
  });
});
