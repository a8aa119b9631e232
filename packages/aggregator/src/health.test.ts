import { Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { aggregatorProvider } from './aggregator-provider.ts';
import { APIServiceResource } from './apiservice/apiservice-resource.ts';
import { startChain, type TestChain } from './test-support/chain.ts';

const started: TestChain[] = [];
afterEach(async () => {
  for (const c of started.splice(0)) await c.stop();
});

describe('autoregister-completion (kube’s boot-sequence check)', () => {
  it('fails before the server started', async () => {
    await expect(aggregatorProvider().healthCheck.check()).rejects.toThrow('autoregister has not started');
  });

  it('passes on /readyz once every APIService registered at start was seen Available', async () => {
    const c = await startChain();
    started.push(c);
    await expect.poll(async () => (await fetch(`${c.url}/readyz/autoregister-completion`)).status).toBe(200);
    const verbose = await (await fetch(`${c.url}/readyz?verbose`)).text();
    expect(verbose).toContain('[+]autoregister-completion ok');
  });

  it('names the APIServices still missing, as kube does: one someone else owns and nothing makes Available', async () => {
    // Before the server starts, `v1.` exists as a remote APIService without the automanaged label: autoregister leaves it.
    const storage = new MemoryStorage();
    await new Store(APIServiceResource, { storage }).create(
      {},
      {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: 'v1.' },
        spec: {
          group: '',
          version: 'v1',
          groupPriorityMinimum: 18000,
          versionPriority: 1,
          service: { namespace: 'x', name: 'y' },
          insecureSkipTLSVerify: true,
        },
      },
    );
    const c = await startChain([], storage);
    started.push(c);
    // The others are seen Available one by one; `v1.` never is.
    const outcome = () =>
      Promise.resolve(c.provider.healthCheck.check()).then(
        () => 'ok',
        (err: Error) => err.message,
      );
    await expect.poll(outcome).toBe('missing APIService: [v1.]');
    const res = await fetch(`${c.url}/readyz/autoregister-completion`);
    expect(res.status).toBe(500);
  });
});
