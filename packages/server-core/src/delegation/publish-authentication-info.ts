import type { KubeObject } from '@kapi/apimachinery';
import { type CABundle, type RequestHeaderNames, STANDARD_REQUEST_HEADERS } from '@kapi/authn';
import type { Watch } from '@kapi/storage';
import type { GenericAPIServer } from '../server/generic-api-server.ts';
import {
  AUTHENTICATION_INFO_NAME,
  AUTHENTICATION_INFO_NAMESPACE,
  type AuthenticationInfo,
  authenticationInfoData,
  combineAuthenticationInfo,
  parseAuthenticationInfo,
} from './authentication-info.ts';

/** What the main server trusts: the same values as its `clientCA` and `requestHeader` options. */
export interface PublishAuthenticationInfoOptions {
  /** kube's --client-ca-file. */
  clientCA?: CABundle | undefined;
  /** kube's --requestheader-* flags; unset header names are the ones kapi's front-proxy authenticator uses. */
  requestHeader?: (RequestHeaderNames & { ca: CABundle; allowedNames?: readonly string[] }) | undefined;
  /** How often the ConfigMap is checked whatever happened (kube re-queues it every minute). Default 60 000 ms. */
  resyncIntervalMs?: number;
  /** Called when a write failed (it is retried). */
  onError?: (err: unknown) => void;
}

/** kube's post-start hook name for this controller. */
export const AUTHENTICATION_INFO_HOOK = 'start-cluster-authentication-info-controller';

const ctx = { namespace: AUTHENTICATION_INFO_NAMESPACE };
const code = (err: unknown): number | undefined =>
  (err as { code?: number; status?: { code?: number } }).status?.code ?? (err as { code?: number }).code;

function ownInfo(o: PublishAuthenticationInfoOptions): AuthenticationInfo {
  const rh = o.requestHeader;
  return {
    clientCA: o.clientCA?.pem() ?? '',
    requestHeaderCA: rh?.ca.pem() ?? '',
    allowedNames: [...(rh?.allowedNames ?? [])],
    usernameHeaders: [...(rh?.usernameHeaders ?? STANDARD_REQUEST_HEADERS.usernameHeaders)],
    uidHeaders: [...(rh?.uidHeaders ?? STANDARD_REQUEST_HEADERS.uidHeaders)],
    groupHeaders: [...(rh?.groupHeaders ?? STANDARD_REQUEST_HEADERS.groupHeaders)],
    extraHeaderPrefixes: [...(rh?.extraHeaderPrefixes ?? STANDARD_REQUEST_HEADERS.extraHeaderPrefixes)],
  };
}

const sameData = (a: Record<string, string> | undefined, b: Record<string, string>): boolean => {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b).length && ka.every((k) => a?.[k] === b[k]);
};

/**
 * kube-apiserver's clusterauthenticationtrust controller, as a post-start hook of the main server: ConfigMap
 * kube-system/extension-apiserver-authentication holds the client CA (`client-ca-file`) and the front proxy's CA,
 * allowed names and header names (`requestheader-*`, lists as JSON arrays), joined with whatever other servers
 * published there, so an extension server can trust the callers the main server trusts (see
 * {@link delegatingAuthentication}). It is written again when a CA bundle changes, when someone edits or deletes the
 * ConfigMap, and every `resyncIntervalMs`. `server` must serve ConfigMaps (itself or through its delegate).
 *
 * @example
 * publishAuthenticationInfo(server, { clientCA, requestHeader });
 */
export function publishAuthenticationInfo(server: GenericAPIServer, options: PublishAuthenticationInfoOptions): void {
  let stopped = false;
  let watch: Watch | undefined;
  let timer: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let retryDelay = 500;
  const offs: Array<() => void> = [];
  // One sync at a time; a request during one runs another after it.
  let running: Promise<void> | undefined;
  let again = false;

  const syncOnce = async (): Promise<void> => {
    const store = server.store('configmaps');
    if (!store) throw new Error('publishAuthenticationInfo: the server does not serve configmaps');
    let current: KubeObject | null = null;
    try {
      current = (await store.get(ctx, AUTHENTICATION_INFO_NAME)) as KubeObject;
    } catch (err) {
      if (code(err) !== 404) throw err;
    }
    const existingData = (current as { data?: Record<string, string> } | null)?.data;
    const data = authenticationInfoData(combineAuthenticationInfo(parseAuthenticationInfo(existingData), ownInfo(options)));
    if (current && sameData(existingData, data)) return;
    await ensureNamespace(server);
    if (current) {
      const next = structuredClone(current) as KubeObject & { data?: Record<string, string> };
      next.data = data;
      await store.update(ctx, AUTHENTICATION_INFO_NAME, next);
    } else {
      const obj = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: AUTHENTICATION_INFO_NAME, namespace: AUTHENTICATION_INFO_NAMESPACE },
        data,
      };
      await store.create(ctx, obj);
    }
  };

  const sync = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await syncOnce();
        } while (again && !stopped);
        retryDelay = 500;
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  // A failed write (a conflict with another writer, storage down) is tried again with a growing delay, as kube's
  // rate-limited queue does.
  const failed = (err: unknown): void => {
    options.onError?.(err);
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      kick();
    }, retryDelay);
    retry.unref();
    retryDelay = Math.min(retryDelay * 2, 30_000);
  };
  const kick = (): void => {
    if (!stopped) sync().catch(failed);
  };

  const watchConfigMap = (): void => {
    const store = server.store('configmaps');
    if (stopped || !store) return;
    const w = store.watch(ctx, { fieldSelector: `metadata.name=${AUTHENTICATION_INFO_NAME}` });
    watch = w;
    void (async () => {
      try {
        for await (const _event of w) kick();
      } catch (err) {
        options.onError?.(err);
      }
      // The watch ended (compaction, a cache restart): watch again.
      if (!stopped && watch === w) setTimeout(watchConfigMap, 1000).unref();
    })();
  };

  server.addPostStartHook(AUTHENTICATION_INFO_HOOK, async () => {
    // The first write is tried before the server reports ready; if it fails, start-up goes on and it is retried.
    await sync().catch(failed);
    for (const b of [options.clientCA, options.requestHeader?.ca]) if (b) offs.push(b.onChange(kick));
    watchConfigMap();
    timer = setInterval(kick, options.resyncIntervalMs ?? 60_000);
    timer.unref();
  });
  server.addPreShutdownHook(AUTHENTICATION_INFO_HOOK, async () => {
    stopped = true;
    clearInterval(timer);
    clearTimeout(retry);
    for (const off of offs) off();
    watch?.stop();
    await running?.catch(() => {});
  });
}

/** kube's createNamespaceIfNeeded: kube-system is created when the server serves namespaces and it is missing. */
async function ensureNamespace(server: GenericAPIServer): Promise<void> {
  const namespaces = server.store('namespaces');
  if (!namespaces) return;
  try {
    await namespaces.get({}, AUTHENTICATION_INFO_NAMESPACE);
    return;
  } catch (err) {
    if (code(err) !== 404) throw err;
  }
  try {
    await namespaces.create({}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: AUTHENTICATION_INFO_NAMESPACE } });
  } catch (err) {
    if (code(err) !== 409) throw err;
  }
}
