import { Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { APIServiceResource } from '../apiservice/apiservice-resource.ts';
import { send, startChain, type TestChain } from '../test-support/chain.ts';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const LABEL = 'kube-aggregator.kubernetes.io/automanaged';

const started: TestChain[] = [];
afterEach(async () => {
  for (const c of started.splice(0)) await c.stop();
});

const local = (group: string, label: string | undefined, priority = 500) => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: `v1.${group}`, ...(label ? { labels: { [LABEL]: label } } : {}) },
  spec: { group, version: 'v1', groupPriorityMinimum: priority, versionPriority: 5 },
});

describe('autoregister over APIServices left by an earlier run (kube’s checkAPIService table)', () => {
  it('updates a served one once, deletes managed ones no longer served, and leaves unlabelled ones', async () => {
    const storage = new MemoryStorage();
    const store = new Store(APIServiceResource, { storage });
    // Core's APIService with a stale spec (5B: update once), two managed ones of groups no longer served (5A, 6A),
    // and one nobody manages (3A).
    await store.create({}, { ...local('', 'onstart'), metadata: { name: 'v1.', labels: { [LABEL]: 'onstart' } } });
    await store.create({}, local('gone.example.com', 'onstart'));
    await store.create({}, local('stale.example.com', 'true'));
    await store.create({}, local('kept.example.com', undefined));

    const c = await startChain([], storage);
    started.push(c);
    const status = async (name: string) => (await send('GET', `${c.url}${APISERVICES}/${name}`)).status;
    await expect.poll(() => status('v1.gone.example.com')).toBe(404);
    await expect.poll(() => status('v1.stale.example.com')).toBe(404);
    await expect
      .poll(async () => (await send('GET', `${c.url}${APISERVICES}/v1.`)).body.spec)
      .toEqual({
        group: '',
        version: 'v1',
        groupPriorityMinimum: 18000,
        versionPriority: 1,
      });
    expect(await status('v1.kept.example.com')).toBe(200);
  });
});
