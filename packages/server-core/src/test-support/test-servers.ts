import { TokenFileAuthenticator, withAuthenticatedGroup } from '@kapi/authn';
import { ConfigMap, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach } from 'vitest';
import { type Listening, listen } from '../filters/serve.ts';
import { GenericAPIServer, type GenericAPIServerOptions } from '../server/generic-api-server.ts';

export interface TestServerOptions extends Partial<GenericAPIServerOptions> {
  /** Bearer tokens as a token file holds them (CSV: token,user,uid,"group,…"); every user also gets system:authenticated. */
  tokens?: string;
}

export interface TestServer {
  url: string;
  server: GenericAPIServer;
  /** Closes the listener and shuts the server down now rather than after the test. */
  stop(): Promise<void>;
}

/**
 * A test file's servers: each `start` builds a GenericAPIServer (memory storage, Namespaces and ConfigMaps unless
 * told otherwise: `defaults`, then the call's options) serving HTTP on a loopback port. Every server started in a
 * test and not stopped is stopped after it (the caller's vitest `afterEach`), so call this at the top of the file.
 */
export function testServers(defaults: TestServerOptions = {}): (options?: TestServerOptions) => Promise<TestServer> {
  let running: { server: GenericAPIServer; http: Listening }[] = [];
  afterEach(async () => {
    for (const r of running.reverse()) {
      await r.http.close();
      await r.server.shutdown();
    }
    running = [];
  });
  return async (options = {}) => {
    const { tokens, ...rest } = { ...defaults, ...options };
    const server = new GenericAPIServer({
      storage: new MemoryStorage(),
      resources: [Namespace, ConfigMap],
      ...(tokens === undefined
        ? {}
        : { authentication: { authenticator: withAuthenticatedGroup(TokenFileAuthenticator.fromCSV(tokens)) } }),
      ...rest,
    });
    await server.start();
    const http = await listen(server.handler);
    const entry = { server, http };
    running.push(entry);
    return {
      url: http.url,
      server,
      async stop() {
        running = running.filter((r) => r !== entry);
        await http.close();
        await server.shutdown();
      },
    };
  };
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
export const json = async (res: Response): Promise<any> => res.json();

/** POSTs `body` as JSON (bytes as they are, with the content type in `headers`) with the headers given. */
export function post(url: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: body instanceof Uint8Array ? body : JSON.stringify(body),
  });
}
