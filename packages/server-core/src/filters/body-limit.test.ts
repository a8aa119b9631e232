import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, readRequestBody, withRequestBodyLimit } from './body-limit.ts';
import { compose } from './compose.ts';
import { withPanicRecovery } from './panic-recovery.ts';
import { type Listening, listen } from './serve.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

async function start(maxBytes?: number): Promise<Listening> {
  return listen(
    compose([withPanicRecovery(), withRequestBodyLimit(maxBytes === undefined ? {} : { maxBytes })], async (ctx) => {
      const body = await readRequestBody(ctx);
      ctx.res.end(String(body.length));
    }),
  );
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
