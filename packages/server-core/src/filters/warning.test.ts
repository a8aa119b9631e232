import { afterEach, describe, expect, it } from 'vitest';
import { compose } from './compose.ts';
import { type Listening, listen } from './serve.ts';
import { addWarning, formatWarning, withWarnings } from './warning.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('warnings', () => {
  it('formats as 299 - "<text>" with quotes and backslashes escaped', () => {
    expect(formatWarning('plain')).toBe('299 - "plain"');
    expect(formatWarning('a "q" \\ b')).toBe('299 - "a \\"q\\" \\\\ b"');
  });

  it('sends ctx.warnings as deduplicated Warning headers, on implicit and explicit heads', async () => {
    srv = await listen(
      compose([withWarnings()], async (ctx) => {
        addWarning(ctx, 'v1beta1 is deprecated');
        addWarning(ctx, 'v1beta1 is deprecated');
        ctx.warnings.push('second', 'second');
        if (ctx.url.pathname === '/explicit') ctx.res.writeHead(201);
        ctx.res.end('x');
      }),
    );
    for (const path of ['/implicit', '/explicit']) {
      const r = await fetch(srv.url + path);
      expect(r.headers.get('warning')).toBe('299 - "v1beta1 is deprecated", 299 - "second"');
    }
  });

  it('sends any text: characters past ASCII escaped as Go quotes them, control characters as spaces', async () => {
    srv = await listen(
      compose([withWarnings()], async (ctx) => {
        addWarning(ctx, 'unknown field "spec.ü日😀"');
        addWarning(ctx, 'a\u0000b\nc\u007fd\te');
        addWarning(ctx, 'lone \ud800 surrogate');
        ctx.res.end('x');
      }),
    );
    const r = await fetch(srv.url);
    expect(r.status).toBe(200);
    expect(r.headers.get('warning')).toBe(
      '299 - "unknown field \\"spec.\\u00fc\\u65e5\\U0001f600\\"", 299 - "a b c d\te", 299 - "lone \\ud800 surrogate"',
    );
  });

  it("truncates as kube's recorder: all while within 4096 runes, then each cut to 256 runes until 4096 are written", async () => {
    const long = 'x'.repeat(300);
    srv = await listen(
      compose([withWarnings()], async (ctx) => {
        addWarning(ctx, 'short');
        for (let i = 0; i < 30; i++) addWarning(ctx, `${i}${long}`);
        ctx.res.end('x');
      }),
    );
    const values = ((await fetch(srv.url)).headers.get('warning') ?? '').split(', ');
    // 'short' (5 runes) and 13 items cut to 256 runes pass 4096; the one that crosses it is the last written.
    expect(values).toHaveLength(17);
    expect(values[0]).toBe('299 - "short"');
    expect(values[1]).toBe(`299 - "0${'x'.repeat(255)}"`);
    expect(values[16]).toBe(`299 - "15${'x'.repeat(254)}"`);
  });

  it('sends no Warning header when there are none', async () => {
    srv = await listen(compose([withWarnings()], async (ctx) => void ctx.res.end()));
    expect((await fetch(srv.url)).headers.get('warning')).toBeNull();
  });
});
