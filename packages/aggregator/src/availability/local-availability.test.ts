import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIService } from '../apiservice/types.ts';
import { type Json, send, startChain, type TestChain } from '../test-support/chain.ts';
import { setAPIServiceCondition } from './local-availability-controller.ts';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

let c: TestChain;
beforeAll(async () => {
  c = await startChain();
});
afterAll(() => c.stop());

const get = async (name: string): Promise<Json> => (await send('GET', `${c.url}${APISERVICES}/${name}`)).body;
const available = async (name: string): Promise<Json> =>
  ((await get(name)).status?.conditions ?? []).find((x: Json) => x.type === 'Available');

describe('local APIServices are kept Available (the local half of kube-aggregator’s availability controller)', () => {
  it('marks an APIService turned from remote to local Available, reason Local', async () => {
    const created = await send('POST', c.url + APISERVICES, {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.wardle.example.com' },
      spec: {
        group: 'wardle.example.com',
        version: 'v1',
        groupPriorityMinimum: 1000,
        versionPriority: 15,
        service: { namespace: 'w', name: 'api' },
      },
    });
    expect(created.status).toBe(201);
    // A remote one is not this controller's: no condition is written.
    expect(await available('v1.wardle.example.com')).toBeUndefined();

    const local = { ...created.body, spec: { ...created.body.spec } };
    delete local.spec.service;
    expect((await send('PUT', `${c.url}${APISERVICES}/v1.wardle.example.com`, local)).status).toBe(200);
    await expect
      .poll(() => available('v1.wardle.example.com'))
      .toMatchObject({ status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
  });

  it('puts back Available=True on a local APIService whose status someone set otherwise', async () => {
    await expect.poll(async () => (await available('v1.'))?.status).toBe('True');
    const current = await get('v1.');
    const written = await send('PUT', `${c.url}${APISERVICES}/v1./status`, {
      ...current,
      status: { conditions: [{ type: 'Available', status: 'False', reason: 'Broken', message: 'by hand' }] },
    });
    expect(written.status).toBe(200);
    await expect
      .poll(() => available('v1.'))
      .toMatchObject({ status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
  });
});

describe('setAPIServiceCondition', () => {
  const base = (): APIService => ({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.x' } });

  it('keeps lastTransitionTime while the status stays, and takes the new one when it changes', () => {
    const s = base();
    setAPIServiceCondition(s, { type: 'Available', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'A' });
    setAPIServiceCondition(s, { type: 'Available', status: 'True', lastTransitionTime: '2026-02-01T00:00:00Z', reason: 'B' });
    expect(s.status?.conditions).toEqual([{ type: 'Available', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'B' }]);
    setAPIServiceCondition(s, { type: 'Available', status: 'False', lastTransitionTime: '2026-03-01T00:00:00Z', reason: 'C' });
    expect(s.status?.conditions).toEqual([{ type: 'Available', status: 'False', lastTransitionTime: '2026-03-01T00:00:00Z', reason: 'C' }]);
  });
});
