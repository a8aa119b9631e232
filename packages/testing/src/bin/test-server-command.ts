import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { realClock } from '@kapi/apimachinery';
import { type Serving, selfSignedServingCertificate, serve } from '@kapi/server-core';
import { kubeconfigText } from '../kubeconfig-file.ts';
import { startTestServer } from '../start-test-server.ts';
import { readCRDFiles } from './crd-files.ts';
import type { TestServerFlags } from './test-server-flags.ts';

export interface RunningTestServer {
  readonly url: string;
  readonly kubeconfigPath: string;
  /** Stops serving, stops the server, removes the kubeconfig. Idempotent. */
  stop(): Promise<void>;
}

/** Starts the test server the flags ask for and writes its kubeconfig where they say. */
export async function startTestServerCommand(flags: TestServerFlags): Promise<RunningTestServer> {
  const crds = await readCRDFiles(flags.crds);
  // With a fixed port, the bin serves the server's handler there itself (startTestServer always takes a free port),
  // so the test server's own listener needs no certificate.
  // The real clock: nobody outside the process could advance a fake one, and another language's client and its
  // controllers (lease expiry, watch timeouts, timestamps) count in real time.
  const server = await startTestServer({ crds, clock: realClock, tls: flags.tls && flags.port === 0 });
  let fixed: Serving | undefined;
  let text: string;
  try {
    if (flags.port === 0) {
      // The test server's own kubeconfig (its token, its CA), copied to the path asked for.
      text = readFileSync(server.kubeconfigPath, 'utf8');
    } else {
      const cert = flags.tls ? await selfSignedServingCertificate({ ips: ['127.0.0.1'] }) : undefined;
      fixed = await serve(server.server.handler, { port: flags.port, host: '127.0.0.1', ...(cert ? { tls: cert } : {}) });
      text = kubeconfigText({ url: fixed.url, token: server.token, ca: cert?.ca });
    }
    await writeFile(flags.kubeconfig, text, { mode: 0o600 });
  } catch (err) {
    await fixed?.shutdown({ gracePeriodMs: 0 });
    await server.stop();
    throw err;
  }
  const url = fixed?.url ?? server.url;
  let stopping: Promise<void> | undefined;
  return {
    url,
    kubeconfigPath: flags.kubeconfig,
    stop() {
      stopping ??= (async () => {
        // The fixed port first: its watches end and its requests drain before the server stops.
        await fixed?.shutdown({ gracePeriodMs: 1000 });
        await server.stop();
        // A kubeconfig left behind would point at a port nobody serves.
        await rm(flags.kubeconfig, { force: true });
      })();
      return stopping;
    },
  };
}
