import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import {
  AdmissionControl,
  endpointsServiceResolver,
  mapServiceResolver,
  ObjectCache,
  ServiceResolutionError,
  type ServiceResolver,
} from '@kapi/admission';
import { aggregatorProvider } from '@kapi/aggregator';
import { APIExtensions, kindCelTypes } from '@kapi/apiextensions';
import { isAlreadyExists, type KubeObject } from '@kapi/apimachinery';
import {
  DynamicCABundle,
  loadOrCreateServiceAccountKey,
  OIDCAuthenticator,
  type OIDCOptions,
  type RequestHeaderAuthenticatorOptions,
  ServiceAccountAuthenticator,
  ServiceAccountTokenIssuer,
  serviceAccountKeySet,
  staticCABundle,
  TokenFileAuthenticator,
  unionAuthenticator,
  withAuthenticatedGroup,
} from '@kapi/authn';
import { type Authorizer, buildAuthorizer, RBAC, WebhookAuthorizer } from '@kapi/authz';
import { ConfigMap, Event, EventsV1Event, Lease, type ListWatchSource, Namespace, Secret, ServiceAccount } from '@kapi/registry';
import {
  type APIProvider,
  APIServerMetrics,
  admissionMetrics,
  authorizationWebhookMetrics,
  authorizerLabelsForMode,
  clientCertificateAuthority,
  decodeYAML,
  GenericAPIServer,
  instrumentedAuthorizer,
  issueClientCertificate,
  JWKS_PATH,
  LeaderElectedControllers,
  type LeaderElectionConfig,
  publishAuthenticationInfo,
  type Serving,
  selfSignedServingCertificate,
  serve,
  storeObjectGetter,
  writeKubeconfig,
} from '@kapi/server-core';
import type { Storage } from '@kapi/storage';
import type { AdmissionFlagOptions } from './admission-flags.ts';
import type { AuthorizationFlagOptions } from './authorization-flags.ts';
import { withDataDirLock } from './data-dir-lock.ts';
import { Endpoints } from './endpoints.ts';
import { FRONT_PROXY_CLIENT, frontProxyCredentials } from './front-proxy.ts';
import { Service } from './service.ts';
import type { ServiceAccountOptions } from './service-account-flags.ts';
import { storageFromFlag } from './storage-flag.ts';
import { type TokenAuthenticationOptions, tokenAuthenticators } from './token-authenticators.ts';
import { Widget } from './widget.ts';

export { storageFromFlag };

/** kube-apiserver's usual --service-account-issuer (kubeadm's default). */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export interface ControlPlaneOptions
  extends TokenAuthenticationOptions,
    ServiceAccountOptions,
    AuthorizationFlagOptions,
    AdmissionFlagOptions {
  /** `memory` (default), `etcd://host:port` or `redis://host:port`, or the backend itself (see `storageFromFlag`). */
  storage?: string | Storage;
  /** Default 6443; 0 = any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  bind?: string;
  /** Where the serving certificate, the token file and the kubeconfig live. Default `.kapi` in the working directory. */
  dataDir?: string;
  /** Serve plain HTTP instead of HTTPS (tests on loopback). */
  insecureHTTP?: boolean;
  /** kube's --min-request-timeout (watches without timeoutSeconds end after [min, 2·min) s). Default 1800. */
  minRequestTimeoutSeconds?: number;
  /** ID tokens of this OIDC issuer are accepted besides the token file (kube's --oidc-* flags; see oidc-flags.ts). */
  oidc?: OIDCOptions;
  /** More JWT issuers, e.g. those of kube's --authentication-config file (see jwtOptionsFromFlags). */
  jwt?: readonly OIDCOptions[];
  /**
   * A front proxy's X-Remote-User / X-Remote-Group / X-Remote-Extra-* are believed on a client certificate of `ca`
   * (kube's --requestheader-client-ca-file, --requestheader-allowed-names, --requestheader-*-headers).
   */
  requestHeader?: RequestHeaderAuthenticatorOptions;
  /**
   * The client certificate (and key) the aggregator presents to aggregated API servers (kube's
   * --proxy-client-cert-file / --proxy-client-key-file). Default: `<dataDir>/front-proxy/front-proxy-client.crt`,
   * issued by the data directory's front-proxy CA, which is then trusted for request-header authentication (unless
   * `requestHeader` says otherwise).
   */
  proxyClientCertFile?: string;
  proxyClientKeyFile?: string;
  /**
   * This process is one of several serving one etcd or Redis (kube's --leader-elect): the controllers kube runs in
   * kube-controller-manager (namespace, serviceaccounts, garbage collector, ResourceQuota) run only while it holds the
   * kube-system/kube-controller-manager Lease. Identity default: `<hostname>_<uuid>`, as kube's. Default: off.
   */
  leaderElection?: Omit<LeaderElectionConfig, 'identity'> & { identity?: string };
}

export interface ControlPlane {
  readonly url: string;
  readonly kubeconfigPath: string;
  /** `<dataDir>/admin.kubeconfig`: the same admin (kapi-admin, system:masters) with a client certificate instead of the token. */
  readonly clientCertKubeconfigPath: string;
  /** The admin's bearer token. */
  readonly token: string;
  /** The first server of the chain: the aggregator (delegating to the APIExtensions server, then the control plane's kinds). */
  readonly server: GenericAPIServer;
  readonly serving: Serving;
  /** The client certificate (PEM) the aggregator presents to aggregated servers (kube's --proxy-client-cert-file). */
  readonly proxyClient: { readonly cert: string; readonly key: string };
  /** The leader election of the singleton controllers, when `leaderElection` was given. */
  readonly leaderElection: LeaderElectedControllers | undefined;
  /** Drains requests, ends watches, stops the server and closes the storage. */
  stop(): Promise<void>;
}

/** The token file of the data directory, created with one admin (system:masters) the first time. */
async function adminToken(dataDir: string): Promise<{ csv: string; token: string }> {
  const path = join(dataDir, 'tokens.csv');
  try {
    const csv = await readFile(path, 'utf8');
    const first = csv.split('\n').find((l) => l.trim() && !l.startsWith('#'));
    if (first) return { csv, token: first.split(',')[0] as string };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(24).toString('hex');
  const csv = `${token},kapi-admin,kapi-admin,"system:masters"\n`;
  await writeFile(path, csv, { mode: 0o600 });
  await chmod(path, 0o600);
  return { csv, token };
}

/**
 * Starts the example control plane, kube-apiserver's server chain: the aggregator (apiregistration.k8s.io APIServices,
 * a local one registered for every served group-version, remote ones proxied to aggregated servers), delegating to the
 * APIExtensions server (CustomResourceDefinitions, their kinds served at run time), delegating to the control plane's
 * own kinds, Namespace, ConfigMap, Secret, ServiceAccount, Service, Endpoints, Event, Lease and Widget
 * (example.kapi.dev/v1), over the chosen backend behind watch caches; HTTPS (HTTP/2 and HTTP/1.1) with a self-signed
 * certificate kept in the data directory; bearer tokens from `<dataDir>/tokens.csv`; RBAC with kube's bootstrap policy
 * (or the --authorization-mode given); `<dataDir>/kubeconfig` for kubectl; client certificates of
 * `<dataDir>/client-ca.crt` (reloaded when it changes) and `<dataDir>/admin.kubeconfig`, the admin with a client
 * certificate it issued; a front-proxy CA and the aggregator's proxy client certificate in `<dataDir>/front-proxy/`,
 * published with the client CA in kube-system/extension-apiserver-authentication for aggregated servers.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const dataDir = resolve(options.dataDir ?? '.kapi');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const bind = options.bind ?? '127.0.0.1';
  const storage = typeof options.storage === 'object' ? options.storage : storageFromFlag(options.storage ?? 'memory');
  // Every credential of the data directory is made once: several processes of one control plane (--workers, or
  // processes given the same --data-dir) share it, the first creating what is missing while the others wait.
  const { csv, token, clientCA, signingKey, frontProxy, cert } = await withDataDirLock(dataDir, async () => ({
    ...(await adminToken(dataDir)),
    // kube's --client-ca-file: a client CA kept in the data directory, whose file is read again when it changes.
    clientCA: await clientCertificateAuthority({ dir: dataDir }),
    // Service-account tokens are signed with a key kept in the data directory (or given), so they outlive a restart.
    signingKey: options.serviceAccountSigningKeyFile
      ? await readFile(options.serviceAccountSigningKeyFile, 'utf8')
      : await loadOrCreateServiceAccountKey(join(dataDir, 'sa.key')),
    frontProxy: await frontProxyCredentials(join(dataDir, 'front-proxy')),
    cert: options.insecureHTTP ? undefined : await selfSignedServingCertificate({ dir: dataDir, ips: bind === '0.0.0.0' ? [] : [bind] }),
  }));
  const clientCABundle = await DynamicCABundle.fromFile(clientCA.certPath, {
    onError: (e) => console.error(`client CA file: keeping the previous bundle: ${e.message}`),
  });
  const oldKeys = await Promise.all((options.serviceAccountKeyFiles ?? []).map((f) => readFile(f, 'utf8')));
  const saIssuer = new ServiceAccountTokenIssuer({
    issuer: options.serviceAccountIssuer ?? DEFAULT_SERVICE_ACCOUNT_ISSUER,
    key: serviceAccountKeySet(signingKey, oldKeys),
    ...(options.serviceAccountMaxTokenExpirationSeconds ? { maxExpirationSeconds: options.serviceAccountMaxTokenExpirationSeconds } : {}),
  });
  // Reads the server's own stores (through their watch caches) once it is built.
  const serviceAccounts = new ServiceAccountAuthenticator({
    issuers: [saIssuer.issuer],
    keys: saIssuer.verificationKeys,
    serviceAccounts: storeObjectGetter(() => server.store('serviceaccounts')),
    secrets: storeObjectGetter(() => server.store('secrets')),
    ...(options.apiAudiences?.length ? { audiences: options.apiAudiences } : {}),
    ...(options.serviceAccountLegacyTokens ? { legacy: true } : {}),
  });
  let url = '';
  const oidc = [...(options.oidc ? [options.oidc] : []), ...(options.jwt ?? [])].map(
    (o) =>
      new OIDCAuthenticator({
        onDiscoveryError: (e) => console.error(`oidc authenticator: initializing plugin: ${e.message}`),
        // kube wraps OIDC as audience-agnostic: its ID tokens are good for the server's API audiences.
        apiAudiences: options.apiAudiences ?? [],
        ...o,
      }),
  );
  // Bootstrap tokens read Secrets through the server's watch cache; webhook and basic auth as the options say.
  const moreTokens = tokenAuthenticators(
    options,
    storeObjectGetter(() => server.store('secrets')),
  );
  // kube-apiserver's authorization: system:masters, then the modes in order (RBAC by default), each counted in
  // apiserver_authorization_decisions_total; RBAC's kinds, escalation checks, bootstrap policy and aggregation always.
  const metrics = new APIServerMetrics();
  const rbac = new RBAC({ authorizer: () => authorizer });
  let webhook: WebhookAuthorizer | undefined;
  const authorizer: Authorizer = buildAuthorizer(
    {
      modes: options.authorizationModes ?? ['RBAC'],
      ...(options.authorizationPolicyFile ? { policyFile: options.authorizationPolicyFile } : {}),
      ...(options.authorizationWebhookConfigFile ? { webhookConfigFile: options.authorizationWebhookConfigFile } : {}),
    },
    {
      RBAC: () => rbac.authorizer,
      // kube's --authorization-webhook-config-file is a kubeconfig, YAML or JSON.
      Webhook: (file) => {
        webhook = WebhookAuthorizer.fromKubeconfigFile(file, {
          parse: decodeYAML,
          version: options.authorizationWebhookVersion ?? 'v1beta1',
          ...(options.authorizationWebhookAuthorizedTTLMs !== undefined
            ? { authorizedTTLMs: options.authorizationWebhookAuthorizedTTLMs }
            : {}),
          ...(options.authorizationWebhookUnauthorizedTTLMs !== undefined
            ? { unauthorizedTTLMs: options.authorizationWebhookUnauthorizedTTLMs }
            : {}),
          metrics: authorizationWebhookMetrics(metrics.registry),
        });
        return webhook;
      },
      instrument: (mode, a) => instrumentedAuthorizer(authorizerLabelsForMode(mode), a, metrics.authorization),
    },
  );
  // kube-apiserver resolves an APIService's or a webhook's Service through its Service and Endpoints (the endpoints
  // resolver, as without a Service network), read from caches of the chain's own stores.
  const services = serviceEndpointsCaches();
  // kube-apiserver's admission: its default plugins (webhooks, ValidatingAdmissionPolicy, ResourceQuota, …) unless the
  // flags say otherwise, the admissionregistration.k8s.io kinds and ResourceQuota served by the control plane, and
  // the configurations kept from the caches of the whole chain (a policy's params may be custom resources).
  const admissionControl = new AdmissionControl({
    ...(options.enableAdmissionPlugins ? { enable: options.enableAdmissionPlugins } : {}),
    ...(options.disableAdmissionPlugins ? { disable: options.disableAdmissionPlugins } : {}),
    ...(options.admissionControlConfigFile ? { configFile: options.admissionControlConfigFile } : {}),
    // A webhook's clientConfig.service: --admission-webhook-service first, then the Service and Endpoints objects.
    serviceResolver: options.admissionWebhookServices
      ? firstServiceResolver(mapServiceResolver(options.admissionWebhookServices), services.resolver)
      : services.resolver,
    authorizer: () => authorizer,
    metrics: admissionMetrics(metrics.registry),
    // Policies are type-checked against every served kind's schema, custom resources' included.
    kindSchemas: (host) => kindCelTypes(() => host.definitions()),
  });
  const admission = admissionControl.chain;
  // Its kinds are the control plane's; it starts on the first server of the chain, which sees every server's kinds.
  const admissionProvider = admissionControl.provider();
  // kube's front proxy: the aggregator presents a client certificate (CN front-proxy-client) to aggregated servers,
  // which believe its X-Remote-* headers because the CA that issued it is published as the request-header CA.
  const proxyClient =
    options.proxyClientCertFile && options.proxyClientKeyFile
      ? { cert: await readFile(options.proxyClientCertFile, 'utf8'), key: await readFile(options.proxyClientKeyFile, 'utf8') }
      : { cert: frontProxy.cert, key: frontProxy.key };
  const requestHeader: RequestHeaderAuthenticatorOptions = options.requestHeader ?? {
    ca: staticCABundle(frontProxy.ca.cert),
    allowedNames: [FRONT_PROXY_CLIENT],
    usernameHeaders: ['X-Remote-User'],
    groupHeaders: ['X-Remote-Group'],
    extraHeaderPrefixes: ['X-Remote-Extra-'],
  };
  // kube-apiserver's chain: the aggregator (APIServices; remote ones proxied), then the APIExtensions server (CRDs),
  // then the control plane's own kinds; requests go through one handler chain (the first server's: authentication,
  // authorization, audit, …) and on to the server serving their path. The last to shut down closes the storage they
  // share.
  const leaderElection = options.leaderElection
    ? new LeaderElectedControllers({
        identity: `${hostname()}_${randomUUID()}`,
        onError: (err, what) => console.error(`${what}: ${(err as Error).message ?? String(err)}`),
        ...options.leaderElection,
      })
    : undefined;
  // The same leader election for every server of the chain: one Lease for all their singleton controllers.
  const elected = leaderElection ? { leaderElection } : {};
  const controlPlane = new GenericAPIServer({
    ...elected,
    storage,
    metrics,
    resources: [Namespace, ConfigMap, Secret, ServiceAccount, Service, Endpoints, Event, EventsV1Event, Lease, Widget],
    providers: [rbac.provider(), { name: 'admission', resources: admissionProvider.resources }],
    admission,
    serviceAccountTokens: {
      issuer: saIssuer,
      jwksURI: () => `${url}${JWKS_PATH}`,
      ...(options.apiAudiences?.length ? { apiAudiences: options.apiAudiences } : {}),
    },
    ...(options.minRequestTimeoutSeconds ? { minRequestTimeoutSeconds: options.minRequestTimeoutSeconds } : {}),
  });
  const extensions = new GenericAPIServer({
    ...elected,
    storage,
    closeStorage: false,
    metrics,
    resources: [],
    providers: [new APIExtensions().provider()],
    delegate: controlPlane,
    admission,
    ...(options.minRequestTimeoutSeconds ? { minRequestTimeoutSeconds: options.minRequestTimeoutSeconds } : {}),
  });
  const aggregator = aggregatorProvider({
    serviceResolver: services.resolver,
    proxyClientCert: proxyClient.cert,
    proxyClientKey: proxyClient.key,
    onError: (err) => {
      // Another process of this control plane (--workers, or one more on the same backend) registered it first: the
      // autoregister's retry finds it there, as kube-apiserver replicas do.
      if (isAlreadyExists(err)) return;
      console.error(`aggregator: ${(err as Error).message ?? String(err)}`);
    },
  });
  const server = new GenericAPIServer({
    ...elected,
    storage,
    closeStorage: false,
    metrics,
    resources: [],
    providers: [
      aggregator,
      services.provider,
      // Admission's controllers start on the first server of the chain, which sees every server's kinds.
      { name: 'admission/start', postStartHooks: admissionProvider.postStartHooks, preShutdownHooks: admissionProvider.preShutdownHooks },
    ],
    healthChecks: [aggregator.healthCheck],
    delegate: extensions,
    // kube-controller-manager's garbage collector, on the first server of the chain: it sees every kind, CRDs' too.
    garbageCollector: true,
    admission,
    clientCA: clientCABundle,
    requestHeader,
    authentication: {
      authenticator: withAuthenticatedGroup(
        unionAuthenticator(
          TokenFileAuthenticator.fromCSV(csv, 'tokens.csv', { apiAudiences: options.apiAudiences ?? [] }),
          serviceAccounts,
          ...oidc,
          ...moreTokens,
        ),
      ),
      anonymous: options.anonymousAuth ?? true,
      ...(options.apiAudiences?.length ? { apiAudiences: options.apiAudiences } : {}),
    },
    authorizer,
    ...(options.minRequestTimeoutSeconds ? { minRequestTimeoutSeconds: options.minRequestTimeoutSeconds } : {}),
  });
  // kube-apiserver's cluster-authentication-trust controller: kube-system/extension-apiserver-authentication tells
  // aggregated servers which client CA and front-proxy settings to trust (see @kapi/server-core's delegation).
  publishAuthenticationInfo(server, { clientCA: clientCABundle, requestHeader });
  await server.start();
  const serving = await serve(server.handler, {
    port: options.port ?? 6443,
    host: bind,
    ...(cert ? { tls: { ...cert, clientCA: server.clientCAs } } : {}),
  });
  const kubeconfigPath = join(dataDir, 'kubeconfig');
  url = serving.url.replace('0.0.0.0', '127.0.0.1');
  await writeKubeconfig(kubeconfigPath, { server: url, ca: cert?.ca ?? '', token, namespace: 'default' });
  const clientCertKubeconfigPath = join(dataDir, 'admin.kubeconfig');
  const admin = await issueClientCertificate(clientCA, { user: 'kapi-admin', groups: ['system:masters'] });
  await writeKubeconfig(clientCertKubeconfigPath, {
    server: url,
    ca: cert?.ca ?? '',
    clientCertificate: admin.cert,
    clientKey: admin.key,
    namespace: 'default',
  });
  let stopping: Promise<void> | undefined;
  return {
    url,
    kubeconfigPath,
    clientCertKubeconfigPath,
    token,
    server,
    serving,
    proxyClient,
    leaderElection,
    stop: () => {
      stopping ??= server
        .shutdown({ serving, gracePeriodMs: 5000 })
        .finally(() => clientCABundle.close())
        .finally(() => {
          for (const o of oidc) o.close();
          webhook?.close();
        });
      return stopping;
    },
  };
}

/** The first resolver that knows the Service (a ServiceNotFound of the first falls through to the second). */
function firstServiceResolver(first: ServiceResolver, then: ServiceResolver): ServiceResolver {
  return {
    resolve(namespace, name, port) {
      try {
        return first.resolve(namespace, name, port);
      } catch (err) {
        if (!(err instanceof ServiceResolutionError) || err.reason !== 'ServiceNotFound') throw err;
        return then.resolve(namespace, name, port);
      }
    },
  };
}

/**
 * Service and Endpoints caches over the chain's stores (started after the servers, stopped before they shut down) and
 * kube's endpoints service resolver over them.
 */
function serviceEndpointsCaches(): { resolver: ServiceResolver; provider: APIProvider } {
  let services: ObjectCache<KubeObject> | undefined;
  let endpoints: ObjectCache<KubeObject> | undefined;
  const stop = new AbortController();
  const onError = (err: unknown): void => console.error(`service resolver cache: ${(err as Error).message ?? String(err)}`);
  return {
    resolver: endpointsServiceResolver({
      getService: (namespace, name) => services?.get(namespace, name),
      getEndpoints: (namespace, name) => endpoints?.get(namespace, name),
    }),
    provider: {
      name: 'service-resolver',
      postStartHooks: [
        {
          name: 'start-service-resolver-caches',
          run: async (server) => {
            const source = (resource: string): ListWatchSource => {
              const store = server.store(resource);
              if (!store) throw new Error(`the server chain does not serve ${resource}`);
              return store as unknown as ListWatchSource;
            };
            services = new ObjectCache(source('services'), { signal: stop.signal, onError });
            endpoints = new ObjectCache(source('endpoints'), { signal: stop.signal, onError });
            await Promise.all([services.whenSynced(), endpoints.whenSynced()]);
          },
        },
      ],
      preShutdownHooks: [{ name: 'stop-service-resolver-caches', run: () => stop.abort() }],
    },
  };
}
