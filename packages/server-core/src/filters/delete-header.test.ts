import { afterEach, describe, expect, it } from 'vitest';
import { compose } from './compose.ts';
import { deleteRequestHeader } from './delete-header.ts';
import { type Listening, listen } from './serve.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('deleteRequestHeader', () => {
  it('removes the header from req.headers and req.headersDistinct', async () => {
    srv = await listen(
      compose([], async (ctx) => {
        void ctx.req.headersDistinct; // built before the delete
        deleteRequestHeader(ctx.req, 'x-secret');
        ctx.res.end(
          JSON.stringify([ctx.req.headers['x-secret'] ?? null, ctx.req.headersDistinct['x-secret'] ?? null, ctx.req.headers['x-other']]),
        );
      }),
    );
    const r = await fetch(srv.url, { headers: { 'X-Secret': 's', 'X-Other': 'o' } });
    expect(await r.json()).toEqual([null, null, 'o']);
  });
});
