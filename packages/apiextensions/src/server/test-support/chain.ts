import { Namespace, type ResourceDefinition } from '@kapi/registry';
import { GenericAPIServer, listen } from '@kapi/server-core';
import type { Storage } from '@kapi/storage';
import { APIExtensions, type APIExtensionsOptions } from '../apiextensions.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
export type Json = any;

export interface TestChain {
  readonly url: string;
  readonly chain: GenericAPIServer;
  stop(): Promise<void>;
}

/**
 * kube's chain in process, on plain HTTP: the APIExtensions server first, delegating to a control plane serving
 * `resources` (default: Namespace) over the same storage, which it closes on shutdown unless `closeStorage` is false.
 */
export async function startChain(
  storage: Storage,
  options: { resources?: readonly ResourceDefinition[]; closeStorage?: boolean; apiextensions?: APIExtensionsOptions } = {},
): Promise<TestChain> {
  const controlPlane = new GenericAPIServer({
    storage,
    resources: options.resources ?? [Namespace],
    closeStorage: options.closeStorage ?? true,
  });
  const chain = new GenericAPIServer({
    storage,
    closeStorage: false,
    resources: [],
    providers: [new APIExtensions({ onError: () => {}, ...options.apiextensions }).provider()],
    delegate: controlPlane,
  });
  await chain.start();
  const http = await listen(chain.handler);
  let stopping: Promise<void> | undefined;
  return {
    url: http.url,
    chain,
    stop() {
      stopping ??= http.close().then(() => chain.shutdown());
      return stopping;
    },
  };
}

/** One request; the body as JSON when there is one. */
export async function send(
  method: string,
  url: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: Json }> {
  const res = await fetch(url, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'Content-Type': contentType } }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Polls `probe` until it gives a value (no fixed sleeps: the time taken is what a client waits). */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
