import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** What the kapi-test-server command was asked for. */
export interface TestServerFlags {
  /** 0 = any free port. */
  port: number;
  /** Absolute path the kubeconfig is written to. */
  kubeconfig: string;
  /** Files or directories of CRD manifests (YAML or JSON, several documents per file allowed). */
  crds: string[];
  tls: boolean;
  /** Stop when stdin ends (the harness that started the command went away). */
  exitOnStdinClose: boolean;
  help: boolean;
}

export const USAGE = `Usage: kapi-test-server [flags]

Starts an in-process Kubernetes API server (@kapi/testing's startTestServer), writes an admin kubeconfig and prints
  kapi-test-server ready: <url> kubeconfig=<path>
on stdout once it serves. Stops on SIGTERM or SIGINT (exit 0).

  --port <n>              port on 127.0.0.1 (default 0: a free port)
  --kubeconfig <path>     where to write the kubeconfig (default ./kapi-test.kubeconfig; removed on exit)
  --crds <dir|file>       CRD manifests to install and wait for (*.yaml, *.yml, *.json in a directory); repeatable
  --tls                   HTTPS with a fresh self-signed certificate (its CA in the kubeconfig)
  --storage memory        the backend (only memory: the server is for tests)
  --exit-on-stdin-close   also stop when stdin ends
  -h, --help              this text
`;

/** A bad command line: the message is printed with the usage, and the command exits 2. */
export class UsageError extends Error {}

/** Parses the command line (without node and the script); relative paths are taken from `cwd`. */
export function parseTestServerFlags(argv: readonly string[], cwd: string): TestServerFlags {
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(argv));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const port = Number(values.port ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be 0..65535, not ${JSON.stringify(values.port)}`);
  const storage = values.storage ?? 'memory';
  if (storage !== 'memory') {
    // etcd and Redis backends live in their own packages, which @kapi/testing does not depend on.
    throw new UsageError(`--storage must be memory, not ${JSON.stringify(storage)} (the example control plane serves etcd and Redis)`);
  }
  return {
    port,
    kubeconfig: resolve(cwd, values.kubeconfig ?? 'kapi-test.kubeconfig'),
    crds: (values.crds ?? []).map((p) => resolve(cwd, p)),
    tls: values.tls ?? false,
    exitOnStdinClose: values['exit-on-stdin-close'] ?? false,
    help: values.help ?? false,
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      kubeconfig: { type: 'string' },
      crds: { type: 'string', multiple: true },
      tls: { type: 'boolean' },
      storage: { type: 'string' },
      'exit-on-stdin-close': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
