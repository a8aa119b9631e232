/**
 * The load generator of server.bench.ts, run in a worker thread so the client's own work stays off the event loop of
 * the server it measures. The same code drives kapi and the bare reference server: each message is one run of `n`
 * requests with `concurrency` in flight, over keep-alive HTTP/1.1 (one http.Agent per target, maxSockets =
 * concurrency) or over one HTTP/2 TLS session; the reply is the run's requests/s.
 */
import { Agent, request } from 'node:http';
import { type ClientHttp2Session, connect } from 'node:http2';
import { parentPort } from 'node:worker_threads';
import { rateWithConcurrency } from '../../../scripts/bench-kit.ts';

export interface LoadRun {
  /** http://host:port (HTTP/1.1) or https://host:port (HTTP/2 over TLS, trusting `ca`). */
  url: string;
  ca?: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: string;
  /** POST, PUT, PATCH: the body of request i is `bodyPrefix + i + bodySuffix` (a unique name or value per request). */
  bodyPrefix?: string;
  bodySuffix?: string;
  /** When set, `{key}` in the path and body of request i becomes `i % keys` (PUT and PATCH of `keys` existing objects). */
  keys?: number;
  contentType?: string;
  /** Sent with every request (e.g. authorization). */
  headers?: Record<string, string>;
  n: number;
  concurrency: number;
  /** The status every response must have. */
  status: number;
}

const agents = new Map<string, Agent>();
const sessions = new Map<string, ClientHttp2Session>();

/** The path and body of request i of `run`. */
function requestOf(run: LoadRun, i: number): { path: string; body: string | undefined } {
  const key = run.keys === undefined ? undefined : String(i % run.keys);
  const fill = (s: string) => (key === undefined ? s : s.replaceAll('{key}', key));
  const body = run.method === 'GET' ? undefined : fill(`${run.bodyPrefix}${i}${run.bodySuffix}`);
  return { path: fill(run.path), body };
}

function h1(run: LoadRun, i: number): Promise<void> {
  let agent = agents.get(run.url);
  if (!agent) {
    agent = new Agent({ keepAlive: true, maxSockets: run.concurrency });
    agents.set(run.url, agent);
  }
  const u = new URL(run.url);
  const { path, body } = requestOf(run, i);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: u.hostname,
        port: u.port,
        method: run.method,
        path,
        headers: {
          ...run.headers,
          accept: 'application/json',
          ...(body !== undefined
            ? { 'content-type': run.contentType ?? 'application/json', 'content-length': Buffer.byteLength(body) }
            : {}),
        },
      },
      (res) => {
        if (res.statusCode !== run.status) reject(new Error(`${run.method} ${run.path}: ${res.statusCode}`));
        res.on('data', () => {});
        res.on('end', resolve);
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function h2(run: LoadRun, i: number): Promise<void> {
  let session = sessions.get(run.url);
  if (!session) {
    session = connect(run.url, { ...(run.ca ? { ca: run.ca } : {}), peerMaxConcurrentStreams: run.concurrency });
    sessions.set(run.url, session);
  }
  const { path, body } = requestOf(run, i);
  return new Promise((resolve, reject) => {
    const stream = (session as ClientHttp2Session).request({
      ':method': run.method,
      ':path': path,
      ...run.headers,
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': run.contentType ?? 'application/json' } : {}),
    });
    stream.on('response', (headers) => {
      if (headers[':status'] !== run.status) reject(new Error(`${run.method} ${run.path}: ${headers[':status']}`));
    });
    stream.on('data', () => {});
    stream.on('end', resolve);
    stream.on('error', reject);
    stream.end(body);
  });
}

parentPort?.on('message', async (msg: LoadRun | 'close') => {
  if (msg === 'close') {
    for (const a of agents.values()) a.destroy();
    for (const s of sessions.values()) s.close();
    parentPort?.close();
    return;
  }
  const op = msg.url.startsWith('https:') ? h2 : h1;
  try {
    parentPort?.postMessage({ rate: await rateWithConcurrency(msg.n, msg.concurrency, (i) => op(msg, i)) });
  } catch (err) {
    parentPort?.postMessage({ error: String(err) });
  }
});
