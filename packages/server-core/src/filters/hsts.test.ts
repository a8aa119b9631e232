import { afterEach, describe, expect, it } from 'vitest';
import { compose } from './compose.ts';
import { withHsts } from './hsts.ts';
import { type Listening, listen } from './serve.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('withHsts', () => {
  it('joins the directives into Strict-Transport-Security', async () => {
    srv = await listen(compose([withHsts(['max-age=31536000', 'includeSubDomains', 'preload'])], async (ctx) => void ctx.res.end()));
    const r = await fetch(srv.url);
    expect(r.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains; preload');
  });

  it('sets nothing without directives', async () => {
    srv = await listen(compose([withHsts([])], async (ctx) => void ctx.res.end()));
    expect((await fetch(srv.url)).headers.get('strict-transport-security')).toBeNull();
  });
});
