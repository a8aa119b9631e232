import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APIExtensions } from '@kapi/apiextensions';
import { type Clock, FakeClock } from '@kapi/apimachinery';
import { type Authorizer, buildAuthorizer, RBAC } from '@kapi/authz';
import type { ResourceDefinition } from '@kapi/registry';
import {
  type AuthenticationOptions,
  GenericAPIServer,
  type Serving,
  type ServingCertificate,
  selfSignedServingCertificate,
  serve,
} from '@kapi/server-core';
import { MemoryStorage, type Storage } from '@kapi/storage';
import { BUILTIN_RESOURCES } from './builtin-resources.ts';
import { Faults } from './faults/faults.ts';
import { type CRDInput, installCRDs } from './install-crds.ts';
import { type KubeConfigLike, loadKubeConfig } from './kube-config.ts';
import { kubeconfigText } from './kubeconfig-file.ts';
import { type TestUser, tokenMapAuthenticator } from './token-authenticator.ts';

export interface TestServerOptions<C extends Clock = FakeClock> {
  /** Kinds served beside Namespace and the built-in kinds (defineResource definitions). */
  resources?: readonly ResourceDefinition[];
  /** CRD manifests (objects, or YAML texts of one or more documents), Established and served before the server resolves. */
  crds?: readonly CRDInput[];
  /** The backend; default a new MemoryStorage. Closed by stop() unless `closeStorage` is false. */
  storage?: Storage;
  /** Close `storage` in stop(). Default true. */
  closeStorage?: boolean;
  /** The clock every time-based part of the server reads; default a new FakeClock (moved with `clock.advance(ms)`). */
  clock?: C;
  /**
   * Default none: there is no authentication and every request is allowed. `'RBAC'`: bearer tokens (the admin's, in
   * system:masters, and those of `users`), RBAC with kube's bootstrap policy, anonymous requests as system:anonymous.
   */
  authorization?: 'RBAC';
  /** Tokens → users, for `authorization: 'RBAC'` (give them Roles and bindings through the API, as the admin). */
  users?: Readonly<Record<string, TestUser>>;
  /** Serve reads and watches from watch caches, as kube-apiserver does. Default true. */
  watchCache?: boolean;
  /**
   * HTTPS with a self-signed certificate (its CA in the kubeconfig; one per process, shared by its TLS servers)
   * instead of plain HTTP. Default false.
   */
  tls?: boolean;
  /** Namespaces created at start. Default kube's: default, kube-system, kube-public, kube-node-lease. */
  namespaces?: readonly string[];
  /**
   * Run kube's garbage collector (ownerReferences; background, foreground and orphan deletion). Default true, as in a
   * cluster; false leaves dependents alone, as a bare kube-apiserver does.
   */
  garbageCollector?: boolean;
  /**
   * What `faults.delay` waits on: real time (default; what a client and its own timeouts see), or `'clock'`, the
   * server's clock, so a test releases delayed requests with `clock.advance`.
   */
  faultDelays?: 'real' | 'clock';
  /** Told of errors the server's controllers retry (default: dropped, as they are retried). */
  onError?: (err: unknown, what: string) => void;
}

export interface TestServer<C extends Clock = FakeClock> {
  /** e.g. http://127.0.0.1:34567 */
  readonly url: string;
  /**
   * A kubeconfig file for the admin, for kubectl or another language's client: written to a temp directory the first
   * time this is read (writing it costs a quarter of a start), removed by stop().
   */
  readonly kubeconfigPath: string;
  /**
   * A @kubernetes/client-node KubeConfig for the admin. client-node is an optional peer dependency, loaded the first
   * time this is read (so a test server that never reads it does not pay for loading it).
   */
  readonly kubeConfig: KubeConfigLike;
  /** The admin's bearer token (empty without `authorization`). */
  readonly token: string;
  readonly storage: Storage;
  readonly clock: C;
  /** The first server of the chain (APIExtensions, delegating to the built-in kinds). */
  readonly server: GenericAPIServer;
  /** Failures, delays, ended watches, compaction and dropped connections for the requests a test chooses (see Faults). */
  readonly faults: Faults;
  /** Ends watches, stops the controllers, closes the listener and the storage, removes the temp files. Idempotent. */
  stop(): Promise<void>;
}

/** The admin of a server with `authorization` (kube's system:masters bypasses every mode). */
const ADMIN: TestUser = { name: 'kapi-admin', groups: ['system:masters'] };

/**
 * One self-signed certificate (for 127.0.0.1, any port) for every TLS test server of the process: making a key pair
 * and two certificates costs several starts, and a test gains nothing from a new one.
 */
let servingCertificate: Promise<ServingCertificate> | undefined;
function sharedServingCertificate(): Promise<ServingCertificate> {
  if (!servingCertificate) {
    const made = selfSignedServingCertificate({ ips: ['127.0.0.1'] });
    // A failure is not kept: the next TLS server tries again.
    made.catch(() => {
      if (servingCertificate === made) servingCertificate = undefined;
    });
    servingCertificate = made;
  }
  return servingCertificate;
}

/**
 * An in-process Kubernetes API server for a test: kube's chain (the APIExtensions server, then Namespace, the built-in
 * kinds and `resources`), over `storage` and `clock`, listening on a free loopback port.
 */
export async function startTestServer<C extends Clock = FakeClock>(options: TestServerOptions<C> = {}): Promise<TestServer<C>> {
  const storage = options.storage ?? new MemoryStorage();
  // A FakeClock is a Clock; C defaults to it exactly when no clock is given.
  const clock = options.clock ?? (new FakeClock() as Clock as C);
  const onError = options.onError ?? (() => {});
  const watchCache = options.watchCache ?? true;
  const token = options.authorization ? randomBytes(16).toString('hex') : '';
  let authorization: { authentication: AuthenticationOptions; authorizer: Authorizer } | undefined;
  let rbac: RBAC | undefined;
  if (options.authorization === 'RBAC') {
    const users = new Map<string, TestUser>([[token, ADMIN], ...Object.entries(options.users ?? {})]);
    rbac = new RBAC({ authorizer: () => authorizer, clock, onError });
    const authorizer = buildAuthorizer({ modes: ['RBAC'] }, { RBAC: () => (rbac as RBAC).authorizer });
    authorization = { authentication: { authenticator: tokenMapAuthenticator(users), anonymous: true }, authorizer };
  } else if (options.authorization !== undefined) {
    throw new Error(`authorization must be 'RBAC' or absent, not ${JSON.stringify(options.authorization)}`);
  }
  const controlPlane = new GenericAPIServer({
    storage,
    clock,
    watchCache,
    closeStorage: options.closeStorage ?? true,
    resources: [...BUILTIN_RESOURCES, ...(options.resources ?? [])],
    ...(rbac ? { providers: [rbac.provider()] } : {}),
    ...(options.namespaces ? { defaultNamespaces: options.namespaces } : {}),
  });
  // Faults act in the first server's chain, which every request goes through (a delegate's filters never run).
  const faults = new Faults({
    storage,
    compactWatchCaches: (revision) => server.compactWatchCaches(revision),
    ...(options.faultDelays === 'clock' ? { delayClock: clock } : {}),
  });
  const server = new GenericAPIServer({
    storage,
    clock,
    watchCache,
    closeStorage: false,
    filters: [faults.filter],
    resources: [],
    providers: [new APIExtensions({ clock, onError }).provider()],
    delegate: controlPlane,
    // The first server of the chain sees every kind, CRDs' included.
    garbageCollector: options.garbageCollector ?? true,
    ...(authorization ?? {}),
  });
  let serving: Serving | undefined;
  try {
    await server.start();
    await installCRDs(server, options.crds ?? []);
    const cert = options.tls ? await sharedServingCertificate() : undefined;
    serving = await serve(server.handler, { port: 0, host: '127.0.0.1', ...(cert ? { tls: cert } : {}) });
    const url = serving.url;
    const ca = cert?.ca;
    let dir: string | undefined;
    let kubeconfigPath: string | undefined;
    let kubeConfig: KubeConfigLike | undefined;
    let stopping: Promise<void> | undefined;
    const listening = serving;
    return {
      url,
      get kubeconfigPath() {
        if (kubeconfigPath === undefined) {
          if (stopping) throw new Error('the test server is stopped');
          dir = mkdtempSync(join(tmpdir(), 'kapi-test-'));
          const path = join(dir, 'kubeconfig');
          writeFileSync(path, kubeconfigText({ url, token, ca }), { mode: 0o600 });
          kubeconfigPath = path;
        }
        return kubeconfigPath;
      },
      get kubeConfig() {
        kubeConfig ??= loadKubeConfig({ url, token, ...(ca ? { ca } : {}) });
        return kubeConfig;
      },
      token,
      storage,
      clock,
      faults,
      server,
      stop() {
        stopping ??= server
          .shutdown({ serving: listening, gracePeriodMs: 1000 })
          .finally(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));
        return stopping;
      },
    };
  } catch (err) {
    // A server that failed to start (a bad CRD, say) leaves nothing behind.
    await server.shutdown(serving ? { serving, gracePeriodMs: 0 } : {}).catch(() => {});
    throw err;
  }
}
