import { afterEach, describe, expect, it } from 'vitest';
import { compose } from './compose.ts';
import { withCors } from './cors.ts';
import { type Listening, listen } from './serve.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('withCors', () => {
  it('sets kube CORS headers for allowed origins, answers preflight with 204, ignores others', async () => {
    let handled = 0;
    srv = await listen(
      compose([withCors({ allowedOrigins: ['//example\\.com$', /^https:\/\/ok\.test$/g] })], async (ctx) => {
        handled++;
        ctx.res.end('body');
      }),
    );
    const r = await fetch(srv.url, { headers: { Origin: 'https://example.com' } });
    expect(await r.text()).toBe('body');
    expect(r.headers.get('access-control-allow-origin')).toBe('https://example.com');
    expect(r.headers.get('access-control-allow-methods')).toBe('POST, GET, OPTIONS, PUT, DELETE, PATCH');
    expect(r.headers.get('access-control-allow-headers')).toBe(
      'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since',
    );
    expect(r.headers.get('access-control-expose-headers')).toBe('Date');
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');

    for (let i = 0; i < 2; i++) {
      const pre = await fetch(srv.url, { method: 'OPTIONS', headers: { Origin: 'https://ok.test' } });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('https://ok.test');
    }
    expect(handled).toBe(1);

    const bad = await fetch(srv.url, { headers: { Origin: 'https://evil.test' } });
    expect(bad.headers.get('access-control-allow-origin')).toBeNull();
    const none = await fetch(srv.url);
    expect(none.headers.get('access-control-allow-origin')).toBeNull();
    expect(handled).toBe(3);
  });
});
