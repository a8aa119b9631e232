import { connect } from 'node:net';
import { freePort } from './free-port.ts';
import { poll, startProcess, type TestServer } from './process-server.ts';

export interface RedisServer extends TestServer {
  /** `redis://127.0.0.1:<port>`, for a client. */
  readonly url: string;
}

function ping(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host, port });
    sock.setTimeout(1000, () => sock.destroy(new Error('timeout')));
    sock.once('error', reject);
    sock.once('connect', () => sock.write('PING\r\n'));
    sock.once('data', (d) => {
      sock.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
  });
}

export interface RedisOptions {
  /**
   * Keep the data across kill()/restart() (an append-only file fsynced on every write), as a Redis with
   * persistence would; by default there is none, so a restart comes back empty.
   */
  persistent?: boolean;
  extraArgs?: string[];
}

/** Starts redis-server on a free loopback port, without persistence unless asked. */
export async function startRedis(opts: RedisOptions = {}): Promise<RedisServer> {
  const host = '127.0.0.1';
  const port = await freePort();
  const server = await startProcess({
    command: 'redis-server',
    debianPackage: 'redis-server',
    host,
    port,
    args: (dataDir) => [
      '--port',
      String(port),
      '--bind',
      host,
      '--save',
      '',
      '--appendonly',
      opts.persistent ? 'yes' : 'no',
      ...(opts.persistent ? ['--appendfsync', 'always'] : []),
      '--dir',
      dataDir,
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
      ...(opts.extraArgs ?? []),
    ],
    ready: (deadline) => poll(`redis-server on ${host}:${port}`, deadline, () => ping(host, port)),
  });
  return Object.assign(server, { url: `redis://${host}:${port}` });
}
