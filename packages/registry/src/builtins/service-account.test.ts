import { FakeClock, StatusError } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { Store } from '../store/store.ts';
import { toTable } from '../table/table-convertor.ts';
import { ServiceAccount } from './service-account.ts';

const sa = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace: 'ns' },
  ...extra,
});

describe('ServiceAccount', () => {
  it('is core/v1 serviceaccounts (sa), namespaced', () => {
    expect(ServiceAccount.group).toBe('');
    expect(ServiceAccount.plural).toBe('serviceaccounts');
    expect(ServiceAccount.shortNames).toEqual(['sa']);
    expect(ServiceAccount.namespaced).toBe(true);
  });

  it('stores secrets, imagePullSecrets and automountServiceAccountToken, and prints NAME, SECRETS, AGE as kubectl does', async () => {
    const clock = new FakeClock();
    const store = new Store(ServiceAccount, { storage: new MemoryStorage(), clock });
    const { object } = await store.create(
      { namespace: 'ns' },
      sa('builder', {
        secrets: [{ name: 's1' }, { name: 's2' }],
        imagePullSecrets: [{ name: 'reg' }],
        automountServiceAccountToken: false,
      }),
    );
    expect(object).toMatchObject({
      secrets: [{ name: 's1' }, { name: 's2' }],
      imagePullSecrets: [{ name: 'reg' }],
      automountServiceAccountToken: false,
    });
    const table = toTable(ServiceAccount, object, { clock });
    expect(table.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'Secrets', 'Age']);
    expect(table.rows?.[0]?.cells.slice(0, 2)).toEqual(['builder', 2]);
    const plain = (await store.create({ namespace: 'ns' }, sa('plain'))).object;
    expect(toTable(ServiceAccount, plain, { clock }).rows?.[0]?.cells[1]).toBe(0);
  });

  it('refuses a wrongly typed field with a 422', async () => {
    const store = new Store(ServiceAccount, { storage: new MemoryStorage(), clock: new FakeClock() });
    const err = await store.create({ namespace: 'ns' }, sa('bad', { automountServiceAccountToken: 'yes' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(422);
  });
});
