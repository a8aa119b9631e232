import { afterEach, describe, expect, it } from 'vitest';
import { compose } from './compose.ts';
import type { Filter } from './context.ts';
import { TOO_MANY_REQUESTS_MESSAGE, withMaxInFlightLimit } from './max-in-flight.ts';
import { type Listening, listen } from './serve.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('withMaxInFlightLimit', () => {
  it('limits mutating and read-only pools separately, 429 with Retry-After: 1, and exempts long-running', async () => {
    const gates: Array<() => void> = [];
    let entered = 0;
    const markWatch: Filter = async (ctx, next) => {
      ctx.longRunning = ctx.url.searchParams.has('watch');
      await next();
    };
    const limit = withMaxInFlightLimit({ maxMutating: 1, maxReadOnly: 1 });
    srv = await listen(
      compose([markWatch, limit], async (ctx) => {
        entered++;
        await new Promise<void>((r) => gates.push(r));
        ctx.res.end('done');
      }),
    );
    const url = srv.url;
    const heldGet = fetch(`${url}/a`);
    const heldPost = fetch(`${url}/a`, { method: 'POST' });
    const watch = fetch(`${url}/a?watch=1`);
    await expect.poll(() => entered).toBe(3);
    expect(limit.inFlight()).toEqual({ mutating: 1, readOnly: 1 });

    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(`${url}/b`, { method });
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(await r.json()).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429, message: TOO_MANY_REQUESTS_MESSAGE });
    }
    for (const g of gates.splice(0)) g();
    expect((await heldGet).status).toBe(200);
    expect((await heldPost).status).toBe(200);
    expect((await watch).status).toBe(200);
    expect(limit.inFlight()).toEqual({ mutating: 0, readOnly: 0 });
    const again = fetch(`${url}/c`);
    await expect.poll(() => gates.length).toBe(1);
    gates[0]?.();
    expect((await again).status).toBe(200);
  });

  it('0 means unlimited', async () => {
    const limit = withMaxInFlightLimit({ maxMutating: 0, maxReadOnly: 0 });
    const gates: Array<() => void> = [];
    srv = await listen(
      compose([limit], async (ctx) => {
        await new Promise<void>((r) => gates.push(r));
        ctx.res.end();
      }),
    );
    const all = Array.from({ length: 5 }, () => fetch(srv?.url ?? ''));
    await expect.poll(() => gates.length).toBe(5);
    for (const g of gates) g();
    for (const r of await Promise.all(all)) expect(r.status).toBe(200);
  });
});
