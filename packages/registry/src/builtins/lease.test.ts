import { FakeClock, StatusError } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.ts';
import { tableConvertorFor } from '../table/table-convertor.ts';
import { Lease } from './lease.ts';

describe('Lease', () => {
  let memory: MemoryStorage;
  let store: Store<Lease>;
  const clock = new FakeClock();
  beforeEach(() => {
    memory = new MemoryStorage({ compaction: false });
    store = new Store(Lease, { storage: memory, clock });
  });
  afterEach(() => memory.close());

  const lease = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace: 'kube-system' },
    spec,
  });

  async function invalid(p: Promise<unknown>): Promise<StatusError> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(422);
    return err as StatusError;
  }

  it('keeps the MicroTimes as sent and has no generation', async () => {
    const spec = {
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: '2026-01-02T03:04:05.123456Z',
      renewTime: '2026-01-02T03:04:06.000001Z',
      leaseTransitions: 0,
    };
    const { object } = await store.create({ namespace: 'kube-system' }, lease('ctrl', spec));
    expect(object.spec).toEqual(spec);
    expect(object.metadata.generation).toBeUndefined();
  });

  it('refuses a duration that is not positive and negative transitions, in kube-apiserver words', async () => {
    const err = await invalid(store.create({ namespace: 'kube-system' }, lease('ctrl', { leaseDurationSeconds: 0, leaseTransitions: -1 })));
    expect(err.message).toBe(
      'Lease.coordination.k8s.io "ctrl" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]',
    );
  });

  it('checks the coordinated election fields as kube does (its doubled strategy path included)', async () => {
    const err = await invalid(store.create({ namespace: 'kube-system' }, lease('ctrl', { strategy: 'Newest', preferredHolder: 'b' })));
    expect(err.message).toBe(
      'Lease.coordination.k8s.io "ctrl" is invalid: spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"',
    );
    const forbidden = await invalid(store.create({ namespace: 'kube-system' }, lease('ctrl', { preferredHolder: 'b' })));
    expect(forbidden.message).toBe(
      'Lease.coordination.k8s.io "ctrl" is invalid: spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined',
    );
    const { object } = await store.create(
      { namespace: 'kube-system' },
      lease('ok', { strategy: 'example.com/mine', preferredHolder: 'b' }),
    );
    expect(object.spec?.strategy).toBe('example.com/mine');
  });

  it('validates updates too, and needs the resourceVersion only to be safe (unconditional updates allowed)', async () => {
    const { object } = await store.create({ namespace: 'kube-system' }, lease('ctrl', { holderIdentity: 'a' }));
    await invalid(store.update({ namespace: 'kube-system' }, 'ctrl', { ...object, spec: { leaseDurationSeconds: -5 } }));
    const stale = object.metadata.resourceVersion;
    await store.update({ namespace: 'kube-system' }, 'ctrl', { ...object, spec: { holderIdentity: 'b' } });
    const conflict = await store
      .update({ namespace: 'kube-system' }, 'ctrl', {
        ...object,
        metadata: { ...object.metadata, resourceVersion: stale },
        spec: { holderIdentity: 'c' },
      })
      .catch((e: StatusError) => e);
    expect((conflict as StatusError).code).toBe(409);
    const { metadata: _m, ...unconditional } = object;
    const res = await store.update({ namespace: 'kube-system' }, 'ctrl', {
      ...unconditional,
      metadata: { name: 'ctrl', namespace: 'kube-system' },
      spec: { holderIdentity: 'd' },
    });
    expect(res.object.spec?.holderIdentity).toBe('d');
  });

  it('prints Name, Holder and Age as kubectl get leases shows them', async () => {
    const { object } = await store.create({ namespace: 'kube-system' }, lease('ctrl', { holderIdentity: 'node-1_abc' }));
    const table = tableConvertorFor(Lease).convert(object);
    expect((table.columnDefinitions ?? []).map((c) => c.name)).toEqual(['Name', 'Holder', 'Age']);
    expect(table.rows[0]?.cells.slice(0, 2)).toEqual(['ctrl', 'node-1_abc']);
  });
});
