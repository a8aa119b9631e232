import type { IncomingMessage } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';

/**
 * Dev-only: an API client for the HA harness that, like client-go behind a load balancer, retries what a client may
 * retry — a refused or reset connection (moving to the next server), 429 and 5xx (after the Retry-After it is given,
 * capped so the test stays short) — and counts every retry by cause.
 */

export interface Response {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of the API, checked by the caller.
  body: any;
}

/** Longest wait between retries, whatever Retry-After says (kube's 2 s for an unreachable backend would slow the test). */
const MAX_BACKOFF_MS = 250;
/** One attempt that takes longer is abandoned and retried (EtcdStorage's own deadline is 10 s). */
const ATTEMPT_TIMEOUT_MS = 15_000;
/** A request that cannot be done in this long fails the test. */
const REQUEST_DEADLINE_MS = 30_000;

export class HAClient {
  /** Retries seen, by cause (`connection`, `429`, `500`, `503`, `504`, …). */
  readonly retries = new Map<string, number>();
  /** The first few distinct messages of the answers and errors that were retried (what the figures mean). */
  readonly samples = new Set<string>();
  /** Times the client moved to another server. */
  failovers = 0;
  private current: number;
  private readonly agent: Agent;

  private readonly servers: readonly string[];
  private readonly token: string;

  constructor(servers: readonly string[], token: string, ca: string, preferred = 0) {
    this.servers = servers;
    this.token = token;
    this.current = preferred % servers.length;
    this.agent = new Agent({ ca, keepAlive: true, maxSockets: 8 });
  }

  get server(): string {
    return this.servers[this.current] as string;
  }

  retryCount(): number {
    let n = 0;
    for (const v of this.retries.values()) n += v;
    return n;
  }

  countRetry(cause: string, message?: string): void {
    this.retries.set(cause, (this.retries.get(cause) ?? 0) + 1);
    if (message && this.samples.size < 5) this.samples.add(`${cause}: ${message.slice(0, 200)}`);
  }

  /** Moves to the next server (after a refused or reset connection). */
  failover(): void {
    this.current = (this.current + 1) % this.servers.length;
    this.failovers++;
  }

  /** One attempt on the current server; the response is not read (watches stream it). */
  open(method: string, path: string, body?: unknown, timeoutMs = ATTEMPT_TIMEOUT_MS): Promise<IncomingMessage> {
    const url = new URL(path, this.server);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.token}`,
            accept: 'application/json',
            ...(payload ? { 'content-type': 'application/json' } : {}),
          },
        },
        resolve,
      );
      if (timeoutMs > 0) req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.once('error', reject);
      req.end(payload);
    });
  }

  /** A request retried on connection errors, 429 and 5xx until it gets another answer. */
  async request(method: string, path: string, body?: unknown): Promise<Response> {
    const deadline = Date.now() + REQUEST_DEADLINE_MS;
    for (;;) {
      let retryAfterMs = 50;
      try {
        const res = await this.open(method, path, body);
        const text = await readAll(res);
        const status = res.statusCode ?? 0;
        if (status !== 429 && status < 500) return { status, body: text ? JSON.parse(text) : undefined };
        this.countRetry(String(status), messageOf(text));
        retryAfterMs = Number(res.headers['retry-after'] ?? 0) * 1000 || 100;
      } catch (err) {
        this.countRetry('connection', (err as Error).message);
        this.failover();
        if (Date.now() > deadline) throw err;
      }
      if (Date.now() > deadline) throw new Error(`${method} ${path}: still failing after ${REQUEST_DEADLINE_MS} ms`);
      await sleep(Math.min(retryAfterMs, MAX_BACKOFF_MS));
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

function messageOf(text: string): string {
  try {
    return (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    return text;
  }
}

export function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    res.setEncoding('utf8');
    res.on('data', (d: string) => {
      s += d;
    });
    res.once('end', () => resolve(s));
    res.once('error', reject);
    res.once('aborted', () => reject(new Error('response aborted')));
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
