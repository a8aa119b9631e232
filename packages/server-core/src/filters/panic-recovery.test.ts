import { newForbidden } from '@kapi/apimachinery';
import { afterEach, describe, expect, it } from 'vitest';
import { compose } from './compose.ts';
import { withPanicRecovery } from './panic-recovery.ts';
import { type Listening, listen } from './serve.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('withPanicRecovery', () => {
  it('turns a throw into 500 InternalError and keeps serving; StatusErrors pass as themselves', async () => {
    const seen: unknown[] = [];
    srv = await listen(
      compose([withPanicRecovery({ onPanic: (e) => seen.push(e) })], async (ctx) => {
        if (ctx.url.pathname === '/boom') throw new Error('kaboom');
        if (ctx.url.pathname === '/forbidden') throw newForbidden('widgets', 'w', 'no');
        ctx.res.end('fine');
      }),
    );
    const boom = await fetch(`${srv.url}/boom`);
    expect(boom.status).toBe(500);
    expect((await boom.json()) as { toMatchObject: string }).toMatchObject({
      kind: 'Status',
      reason: 'InternalError',
      code: 500,
      message: 'Internal error occurred: kaboom',
    });
    expect(seen).toHaveLength(1);
    const forb = await fetch(`${srv.url}/forbidden`);
    expect(forb.status).toBe(403);
    expect(((await forb.json()) as { reason: string }).reason).toBe('Forbidden');
    expect(await (await fetch(`${srv.url}/ok`)).text()).toBe('fine');
  });
});
