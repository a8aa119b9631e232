import { request as http1 } from 'node:http';
import { connect as http2 } from 'node:http2';
import { request as https1 } from 'node:https';
import { connect as tcp } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedServingCertificate } from '../serving/self-signed.ts';
import { type Serving, serve } from '../serving/serve.ts';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, type RequestBodyLimitOptions, readRequestBody, withRequestBodyLimit } from './body-limit.ts';
import { compose } from './compose.ts';
import type { Handler } from './context.ts';
import { withPanicRecovery } from './panic-recovery.ts';
import { type Listening, listen } from './serve.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

/** The chain under test: the body limit, then a handler that reads the whole body. */
function chain(opts: RequestBodyLimitOptions = {}): Handler {
  return compose([withPanicRecovery(), withRequestBodyLimit(opts)], async (ctx) => {
    const body = await readRequestBody(ctx);
    ctx.res.end(String(body.length));
  });
}

async function start(maxBytes?: number): Promise<Listening> {
  return listen(chain(maxBytes === undefined ? {} : { maxBytes }));
}

function chunked(total: number, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= total) return c.close();
      const n = Math.min(chunk, total - sent);
      sent += n;
      c.enqueue(new Uint8Array(n));
    },
  });
}

describe('request body limit', () => {
  it('defaults to 3 MiB and reads a body at the limit', async () => {
    expect(DEFAULT_MAX_REQUEST_BODY_BYTES).toBe(3 * 1024 * 1024);
    srv = await start();
    const r = await fetch(srv.url, { method: 'POST', body: new Uint8Array(DEFAULT_MAX_REQUEST_BODY_BYTES) });
    expect(r.status).toBe(200);
    expect(await r.text()).toBe(String(DEFAULT_MAX_REQUEST_BODY_BYTES));
  });

  it('rejects a declared Content-Length over the limit with 413', async () => {
    srv = await start();
    const r = await fetch(srv.url, { method: 'POST', body: new Uint8Array(DEFAULT_MAX_REQUEST_BODY_BYTES + 1) });
    expect(r.status).toBe(413);
    expect((await r.json()) as { toMatchObject: string }).toMatchObject({
      kind: 'Status',
      reason: 'RequestEntityTooLarge',
      code: 413,
      message: `Request entity too large: limit is ${DEFAULT_MAX_REQUEST_BODY_BYTES}`,
    });
  });

  it('enforces the limit while streaming a chunked body of unknown length', async () => {
    srv = await start(100_000);
    const r = await fetch(srv.url, { method: 'POST', body: chunked(1_000_000, 10_000), duplex: 'half' } as RequestInit);
    expect(r.status).toBe(413);
    expect(((await r.json()) as { message: string }).message).toBe('Request entity too large: limit is 100000');
    const ok = await fetch(srv.url, { method: 'POST', body: chunked(100_000, 10_000), duplex: 'half' } as RequestInit);
    expect(await ok.text()).toBe('100000');
  });
});

/** What a client saw of one request: the response (when it arrived in full) and any socket error, in order. */
interface Outcome {
  status?: number;
  body?: string;
  /** The error the request or stream reported, if any, and whether the full response had arrived before it. */
  error?: string;
  errorAfterResponse?: boolean;
}

/** POSTs `body` with node's HTTP/1.1 client (plain or TLS), declared length or chunked; one connection per request. */
function postHTTP1(url: string, body: Buffer, opts: { chunked: boolean; ca?: string }): Promise<Outcome> {
  const u = new URL(url);
  const request = u.protocol === 'https:' ? https1 : http1;
  return new Promise((resolve) => {
    const out: Outcome = {};
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: 'POST',
        path: '/',
        agent: false,
        ...(opts.ca ? { ca: opts.ca } : {}),
        headers: { 'content-type': 'application/json', ...(opts.chunked ? {} : { 'content-length': body.length }) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => {
          out.status = res.statusCode;
          out.body = text;
        });
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      out.error ??= err.code ?? err.message;
      out.errorAfterResponse ??= out.status !== undefined;
    });
    // The client asks to close (agent: false), so the connection ends after the drain; any error comes before 'close'.
    req.on('close', () => resolve(out));
    req.end(body);
  });
}

/** POSTs `body` on a fresh HTTP/2 session. */
function postHTTP2(url: string, body: Buffer, ca: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Outcome = {};
    // node's client holds a whole write in session memory (10 MB by default); a 32 MiB body needs more.
    const session = http2(url, { ca, maxSessionMemory: 64 });
    const finish = (): void => {
      session.close();
      resolve(out);
    };
    session.on('error', (err) => {
      out.error ??= err.message;
      finish();
    });
    const stream = session.request({ ':method': 'POST', ':path': '/', 'content-type': 'application/json', 'content-length': body.length });
    let text = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => {
      out.status = Number(h[':status']);
    });
    stream.on('data', (d: string) => {
      text += d;
    });
    stream.on('end', () => {
      out.body = text;
    });
    stream.on('error', (err) => {
      out.error ??= err.message;
      out.errorAfterResponse ??= out.body !== undefined;
    });
    stream.on('close', finish);
    stream.end(body);
  });
}

const MiB = 1024 * 1024;
/** Requests in a row per case: fewer of the big ones, which take longest over TLS. */
const runsOf = (mib: number): number => (mib > 8 ? 3 : 6);

describe('a refused body is drained so the client reads the 413', () => {
  let plain: Serving;
  let secure: Serving;
  let ca: string;
  beforeAll(async () => {
    const cert = await selfSignedServingCertificate();
    ca = cert.ca;
    plain = await serve(chain());
    secure = await serve(chain(), { tls: cert });
  });
  afterAll(async () => {
    await plain.shutdown({ gracePeriodMs: 1000 });
    await secure.shutdown({ gracePeriodMs: 1000 });
  });

  const expect413 = (o: Outcome, drainable: boolean): void => {
    expect(o.status, JSON.stringify(o)).toBe(413);
    expect(JSON.parse(o.body ?? '{}')).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
    // Within the drain bound the client never sees its connection cut; past it, only after it has the response.
    if (drainable) expect(o.error, JSON.stringify(o)).toBeUndefined();
    else if (o.error) expect(o.errorAfterResponse, JSON.stringify(o)).toBe(true);
  };

  // 4 MiB is within the drain bound (4 × 3 MiB); 32 MiB is past it.
  for (const size of [4, 32]) {
    const body = Buffer.alloc(size * MiB, 0x61);
    const drainable = size * MiB <= 4 * DEFAULT_MAX_REQUEST_BODY_BYTES;
    for (const chunked of [false, true]) {
      const how = chunked ? 'chunked' : 'with Content-Length';
      it(`HTTP/1.1, ${size} MiB ${how}, ${runsOf(size)} times in a row`, { timeout: 30_000 }, async () => {
        for (let i = 0; i < runsOf(size); i++) expect413(await postHTTP1(plain.url, body, { chunked }), drainable);
      });
      it(`HTTPS (HTTP/1.1), ${size} MiB ${how}, ${runsOf(size)} times in a row`, { timeout: 30_000 }, async () => {
        for (let i = 0; i < runsOf(size); i++) expect413(await postHTTP1(secure.url, body, { chunked, ca }), drainable);
      });
    }
    it(`HTTP/2, ${size} MiB, ${runsOf(size)} times in a row`, { timeout: 30_000 }, async () => {
      // The server resets the stream with NO_ERROR after the response: the client stops sending and keeps the 413.
      for (let i = 0; i < runsOf(size); i++) expect413(await postHTTP2(secure.url, body, ca), true);
    });
  }
});

describe('draining is bounded', () => {
  let srv: Serving | undefined;
  afterEach(async () => {
    await srv?.shutdown({ gracePeriodMs: 100 });
    srv = undefined;
  });

  /** Sends headers announcing `declared` bytes and `sent` bytes of body; resolves with what came back and when the server closed. */
  function rawPost(url: string, declared: number, sent: number): Promise<{ response: string; closedAfterMs: number }> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = tcp(Number(u.port), u.hostname);
      let response = '';
      let respondedAt = 0;
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => {
        response += d;
        respondedAt ||= Date.now();
      });
      socket.on('error', () => {});
      socket.on('close', () => resolve({ response, closedAfterMs: respondedAt ? Date.now() - respondedAt : -1 }));
      socket.on('connect', () => {
        socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${declared}\r\n\r\n`);
        socket.write(Buffer.alloc(sent, 0x61));
      });
      setTimeout(() => reject(new Error('the server never closed the connection')), 10_000).unref();
    });
  }

  it('in time: a client that stops sending mid-body is cut off after drainMs', async () => {
    srv = await serve(chain({ maxBytes: 1000, drainMs: 300 }));
    // 2,000 bytes are within the drain bound (4 × 1,000); the rest never comes.
    const { response, closedAfterMs } = await rawPost(srv.url, 1_000_000, 2_000);
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(closedAfterMs).toBeGreaterThanOrEqual(200);
    expect(closedAfterMs).toBeLessThan(5_000);
  });

  it('in bytes: a client that keeps sending is cut off past drainBytes, after it has the 413', async () => {
    srv = await serve(chain({ maxBytes: 1000, drainBytes: 64 * 1024, drainMs: 60_000 }));
    const { response, closedAfterMs } = await rawPost(srv.url, 64 * MiB, 64 * MiB);
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    // Long before drainMs: the byte bound cut it.
    expect(closedAfterMs).toBeGreaterThanOrEqual(0);
    expect(closedAfterMs).toBeLessThan(10_000);
  });

  it('a drained body leaves the connection usable for the next request', async () => {
    srv = await serve(chain({ maxBytes: 1000 }));
    const u = new URL(srv.url);
    const answers = await new Promise<string>((resolve) => {
      const socket = tcp(Number(u.port), u.hostname);
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => {
        text += d;
        if ((text.match(/HTTP\/1\.1 /g) ?? []).length === 2 && text.endsWith('2')) resolve(text);
      });
      socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3000\r\n\r\n${'a'.repeat(3000)}`);
      socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok');
    });
    expect(answers).toMatch(/^HTTP\/1\.1 413 [\s\S]*HTTP\/1\.1 200 [\s\S]*\r\n\r\n2$/);
  });
});
