import { ConfigMap, Namespace, type ResourceDefinition } from '@kapi/registry';
import { GenericAPIServer, type GenericAPIServerOptions, listen, serve } from '@kapi/server-core';
import { MemoryStorage, type Storage } from '@kapi/storage';
import { type AggregatorProvider, type AggregatorProviderOptions, aggregatorProvider } from '../aggregator-provider.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
export type Json = any;

export interface TestChain {
  readonly url: string;
  /** The server every request enters: the aggregator, delegating to `controlPlane`. */
  readonly aggregator: GenericAPIServer;
  readonly controlPlane: GenericAPIServer;
  readonly provider: AggregatorProvider;
  stop(): Promise<void>;
}

export interface TestChainOptions {
  /** The aggregator's options (e.g. a ServiceResolver reaching remote servers). */
  provider?: AggregatorProviderOptions;
  /** The aggregator's authentication; none by default (every request anonymous). */
  authentication?: GenericAPIServerOptions['authentication'];
  /** Listen through serve(), whose connections can be upgraded (the proxy's upgrades), rather than a bare listener. */
  serve?: boolean;
}

/** kube's chain's end in process on plain HTTP: an aggregator server delegating to a control plane over MemoryStorage. */
export async function startChain(
  resources: readonly ResourceDefinition[] = [],
  storage: Storage = new MemoryStorage(),
  options: TestChainOptions = {},
): Promise<TestChain> {
  const controlPlane = new GenericAPIServer({ storage, resources: [Namespace, ConfigMap, ...resources] });
  const provider = aggregatorProvider(options.provider);
  const aggregator = new GenericAPIServer({
    storage,
    closeStorage: false,
    resources: [],
    providers: [provider],
    healthChecks: [provider.healthCheck],
    delegate: controlPlane,
    ...(options.authentication ? { authentication: options.authentication } : {}),
  });
  await aggregator.start();
  const http = options.serve
    ? await serve(aggregator.handler).then((s) => ({ url: s.url, close: () => s.shutdown({ gracePeriodMs: 0 }) }))
    : await listen(aggregator.handler);
  let stopping: Promise<void> | undefined;
  return {
    url: http.url,
    aggregator,
    controlPlane,
    provider,
    stop() {
      stopping ??= http.close().then(() => aggregator.shutdown());
      return stopping;
    },
  };
}

/** One request; the body as JSON when there is one. */
export async function send(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
