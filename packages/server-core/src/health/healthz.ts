import type { ServerResponse } from 'node:http';
import type { Filter, RequestContext } from '../filters/context.ts';

/**
 * One named health check (k8s.io/apiserver/pkg/server/healthz HealthChecker). `check` passes by
 * returning (or resolving) and fails by throwing (or rejecting); the error text only appears on the
 * per-check path `/<endpoint>/<name>`, never in the aggregated output, which is public.
 */
export interface HealthCheck {
  readonly name: string;
  check(): Promise<void> | void;
}

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

/** kube's PingHealthz: always passes. */
export const pingHealthCheck: HealthCheck = Object.freeze({ name: 'ping', check: () => {} });

/** A HealthCheck from a name and a function (kube's NamedCheck). */
export function namedHealthCheck(name: string, check: () => Promise<void> | void): HealthCheck {
  return { name, check };
}

const TEXT_PLAIN = 'text/plain; charset=utf-8';

function writeText(res: ServerResponse, code: number, body: string): void {
  res.statusCode = code;
  res.setHeader('Content-Type', TEXT_PLAIN);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** Go's `%q` for the names in the exclude warning, joined the way kube's formatQuoted does (",", no space). */
function formatQuoted(names: readonly string[]): string {
  return names.map((n) => JSON.stringify(n)).join(',');
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function runCheck(check: HealthCheck): Promise<unknown> {
  try {
    await check.check();
    return undefined;
  } catch (err) {
    return err ?? new Error('check failed');
  }
}

/**
 * Serves `/<endpoint>` and `/<endpoint>/<check name>` for the given checks, as kube's
 * healthz.InstallPathHandler does. It is a {@link Filter}: any other path (including
 * `/<endpoint>/` and `/<endpoint>/<unknown>`, which kube's mux doesn't match either) goes to `next`.
 * Like kube, it answers every method.
 *
 * `/<endpoint>`:
 * - all pass, no `?verbose`: 200 `ok`
 * - all pass, `?verbose`: 200, one `[+]name ok` / `[+]name excluded: ok` line per check, an optional
 *   `warn: some health checks cannot be excluded: no matches for "a","b"` line, then `<endpoint> check passed\n`
 * - any fails: 500 with the same lines (failures as `[-]name failed: reason withheld`) and
 *   `<endpoint> check failed\n`, verbose or not
 * - `?exclude=name` (repeatable) skips a check.
 *
 * `/<endpoint>/<name>`: 200 `ok`, or 500 `internal server error: <error message>\n`.
 *
 * Checks run sequentially in the given order. The `ping` check is prepended unless `checks` already
 * has one named `ping` (pass `{ ping: false }` to leave it out).
 */
export function healthHandler(endpoint: HealthEndpoint, checks: readonly HealthCheck[], options: { ping?: boolean } = {}): Filter {
  const all: HealthCheck[] = [...checks];
  if (options.ping !== false && !all.some((c) => c.name === 'ping')) all.unshift(pingHealthCheck);
  const seen = new Set<string>();
  for (const c of all) {
    // kube names some checks with a slash (poststarthook/<hook>); their per-check path is /<endpoint>/poststarthook/<hook>.
    if (!c.name || c.name.startsWith('/') || c.name.endsWith('/')) throw new Error(`invalid health check name ${JSON.stringify(c.name)}`);
    if (seen.has(c.name)) throw new Error(`duplicate health check ${JSON.stringify(c.name)} for /${endpoint}`);
    seen.add(c.name);
  }
  const root = `/${endpoint}`;
  const byPath = new Map(all.map((c) => [`${root}/${c.name}`, c]));

  return async (ctx: RequestContext, next) => {
    const path = ctx.url.pathname;
    if (path === root) return serveRoot(ctx);
    const single = byPath.get(path);
    if (!single) return next();
    const err = await runCheck(single);
    if (err === undefined) writeText(ctx.res, 200, 'ok');
    else writeText(ctx.res, 500, `internal server error: ${errorText(err)}\n`);
  };

  async function serveRoot(ctx: RequestContext): Promise<void> {
    const query = ctx.url.searchParams;
    const excluded = new Set(query.getAll('exclude'));
    let out = '';
    let failed = false;
    for (const c of all) {
      if (excluded.has(c.name)) {
        excluded.delete(c.name);
        out += `[+]${c.name} excluded: ok\n`;
        continue;
      }
      if ((await runCheck(c)) === undefined) {
        out += `[+]${c.name} ok\n`;
      } else {
        out += `[-]${c.name} failed: reason withheld\n`;
        failed = true;
      }
    }
    if (excluded.size > 0) {
      out += `warn: some health checks cannot be excluded: no matches for ${formatQuoted([...excluded].sort())}\n`;
    }
    if (failed) {
      // kube: http.Error(w, "...<name> check failed", 500), and http.Error appends a newline.
      writeText(ctx.res, 500, `${out}${endpoint} check failed\n`);
      return;
    }
    if (!query.has('verbose')) {
      writeText(ctx.res, 200, 'ok');
      return;
    }
    writeText(ctx.res, 200, `${out}${endpoint} check passed\n`);
  }
}
