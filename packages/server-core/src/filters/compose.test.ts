import { newNotFound } from '@kapi/apimachinery';
import { afterEach, describe, expect, it } from 'vitest';
import { compose } from './compose.ts';
import type { Filter } from './context.ts';
import { type Listening, listen } from './serve.ts';
import { writeStatus } from './write-status.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('compose', () => {
  it('runs filters outermost first around the handler', async () => {
    const order: string[] = [];
    const f =
      (n: string): Filter =>
      async (_ctx, next) => {
        order.push(`${n}>`);
        await next();
        order.push(`<${n}`);
      };
    srv = await listen(
      compose([f('a'), f('b')], async (ctx) => {
        order.push('h');
        ctx.res.end('ok');
      }),
    );
    expect(await (await fetch(srv.url)).text()).toBe('ok');
    expect(order).toEqual(['a>', 'b>', 'h', '<b', '<a']);
  });

  it('rejects a second next() call', async () => {
    let runs = 0;
    const twice: Filter = async (_ctx, next) => {
      await next();
      await next();
    };
    const h = compose([twice], async () => {
      runs++;
    });
    const ctx = { warnings: [], longRunning: false, state: new Map() } as unknown as Parameters<typeof h>[0];
    await expect(h(ctx)).rejects.toThrow('next() called multiple times');
    expect(runs).toBe(1);
  });

  it('writeStatus writes a Status body, code and Retry-After; errors escaping the chain become a Status', async () => {
    srv = await listen(
      compose([], async (ctx) => {
        if (ctx.url.pathname === '/throw') throw newNotFound('widgets', 'w1');
        const err = newNotFound('widgets', 'w2');
        err.status.details = { ...err.status.details, retryAfterSeconds: 7 };
        writeStatus(ctx.res, err);
      }),
    );
    const r = await fetch(`${srv.url}/x`);
    expect(r.status).toBe(404);
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.headers.get('content-type')).toBe('application/json');
    expect((await r.json()) as { toMatchObject: string }).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'NotFound',
      code: 404,
    });
    const t = await fetch(`${srv.url}/throw`);
    expect(t.status).toBe(404);
    expect(((await t.json()) as { message: string }).message).toBe('widgets "w1" not found');
  });
});
