import { FakeClock } from '@kapi/apimachinery';
import { ConfigMap, Namespace } from '@kapi/registry';
import { type Filter, GenericAPIServer, serve } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig } from '../../kube-config.ts';
import { Faults } from '../faults.ts';

export interface FaultsServer {
  url: string;
  kubeConfig: KubeConfig;
  faults: Faults;
  storage: MemoryStorage;
  clock: FakeClock;
  /** Every resource request that reached the filters, as "verb resource" plus its query (e.g. "watch configmaps?…"). */
  requests: string[];
  stop(): Promise<void>;
}

/** A GenericAPIServer serving Namespaces and ConfigMaps with a Faults filter, over HTTP on a loopback port. */
export async function startFaultsServer(
  options: { watchCache?: boolean /** Delays wait on the server's FakeClock rather than real time. */; delayOnClock?: boolean } = {},
): Promise<FaultsServer> {
  const storage = new MemoryStorage();
  const clock = new FakeClock();
  const faults = new Faults({
    storage,
    compactWatchCaches: (revision) => server.compactWatchCaches(revision),
    ...(options.delayOnClock ? { delayClock: clock } : {}),
  });
  const requests: string[] = [];
  const record: Filter = (ctx, next) => {
    const info = ctx.requestInfo;
    if (info?.isResourceRequest) requests.push(`${info.verb} ${info.resource}${ctx.url.search}`);
    return next();
  };
  const server = new GenericAPIServer({
    storage,
    clock,
    resources: [Namespace, ConfigMap],
    watchCache: options.watchCache ?? true,
    filters: [record, faults.filter],
  });
  await server.start();
  const serving = await serve(server.handler, { port: 0, host: '127.0.0.1' });
  return {
    url: serving.url,
    kubeConfig: loadKubeConfig({ url: serving.url, token: '' }),
    faults,
    storage,
    clock,
    requests,
    stop: () => server.shutdown({ serving, gracePeriodMs: 0 }),
  };
}
