import { FakeClock } from '@kapi/apimachinery';
import { afterEach, describe, expect, it } from 'vitest';
import { compose } from './compose.ts';
import type { Filter } from './context.ts';
import { type Listening, listen } from './serve.ts';
import { TIMEOUT_MESSAGE, withTimeout } from './timeout.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('withTimeout', () => {
  it('answers 504 Timeout past the limit and drops the late write; long-running and fast requests are untouched', async () => {
    const clock = new FakeClock();
    const gates: Array<() => void> = [];
    let lateWrite: unknown;
    const markWatch: Filter = async (ctx, next) => {
      ctx.longRunning = ctx.url.searchParams.has('watch');
      await next();
    };
    srv = await listen(
      compose([markWatch, withTimeout({ timeoutMs: 60_000, clock })], async (ctx) => {
        if (ctx.url.pathname === '/fast') return void ctx.res.end('fast');
        await new Promise<void>((r) => gates.push(r));
        ctx.res.setHeader('X-Late', '1');
        ctx.res.statusCode = 201;
        lateWrite = ctx.res.end('late');
      }),
    );
    expect(await (await fetch(`${srv.url}/fast`)).text()).toBe('fast');
    expect(clock.pending).toBe(0);

    const slow = fetch(`${srv.url}/slow`);
    const watch = fetch(`${srv.url}/w?watch=1`);
    await expect.poll(() => gates.length).toBe(2);
    expect(clock.pending).toBe(1); // only the non-watch request has a timer
    clock.advance(59_999);
    clock.advance(1);
    const r = await slow;
    expect(r.status).toBe(504);
    expect(await r.json()).toMatchObject({
      kind: 'Status',
      reason: 'Timeout',
      code: 504,
      message: `Timeout: ${TIMEOUT_MESSAGE}`,
    });
    for (const g of gates) g();
    await expect.poll(() => lateWrite).toBeDefined();
    expect(r.headers.get('x-late')).toBeNull();
    expect((await watch).status).toBe(201); // its own write goes through
  });

  it('passes on an error thrown before the limit (synchronously too) and hands one thrown after it to onLateError', async () => {
    const clock = new FakeClock();
    const late: unknown[] = [];
    let release: (() => void) | undefined;
    srv = await listen(
      compose([withTimeout({ timeoutMs: 1000, clock, onLateError: (err) => late.push(err) })], (ctx) => {
        if (ctx.url.pathname === '/sync') throw new Error('thrown at once');
        return new Promise<void>((r) => {
          release = r;
        }).then(() => {
          throw new Error('thrown late');
        });
      }),
    );
    expect((await fetch(`${srv.url}/sync`)).status).toBe(500);
    expect(clock.pending).toBe(0); // no timer left behind by the request that failed at once

    const slow = fetch(`${srv.url}/slow`);
    await expect.poll(() => release).toBeDefined();
    clock.advance(1000);
    expect((await slow).status).toBe(504);
    release?.();
    await expect.poll(() => late.length).toBe(1);
    expect((late[0] as Error).message).toBe('thrown late');
  });

  it('cuts the connection when the handler had already started the response', async () => {
    const clock = new FakeClock();
    let started = false;
    srv = await listen(
      compose([withTimeout({ timeoutMs: 1000, clock })], async (ctx) => {
        ctx.res.writeHead(200);
        ctx.res.write('partial');
        started = true;
        await new Promise(() => {});
      }),
    );
    const pending = fetch(srv.url).then((r) => r.text());
    await expect.poll(() => started).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    clock.advance(1000);
    await expect(pending).rejects.toThrow();
  });
});
