import { describe, expect, it } from 'vitest';
import { managerIdentifier, parseManagerIdentifier, printManager } from './manager-id.ts';

describe('managerIdentifier', () => {
  it('is the entry JSON in Go field order, without apiVersion for appliers', () => {
    expect(managerIdentifier({ manager: 'kubectl', operation: 'Update', apiVersion: 'v1' })).toBe(
      '{"manager":"kubectl","operation":"Update","apiVersion":"v1"}',
    );
    expect(managerIdentifier({ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1' })).toBe(
      '{"manager":"kubectl","operation":"Apply"}',
    );
    expect(managerIdentifier({ subresource: 'status', apiVersion: 'apps/v1', operation: 'Update', manager: 'ctl' })).toBe(
      '{"manager":"ctl","operation":"Update","apiVersion":"apps/v1","subresource":"status"}',
    );
  });

  it('is the same asked again, and a field that is not a string never shares the identifier of its string form', () => {
    const fields = { manager: 'm', operation: 'Update', apiVersion: 'v1' } as const;
    expect(managerIdentifier(fields)).toBe(managerIdentifier({ ...fields }));
    const odd = { ...fields, manager: 1 } as unknown as Parameters<typeof managerIdentifier>[0];
    expect(managerIdentifier({ ...fields, manager: '1' })).toBe('{"manager":"1","operation":"Update","apiVersion":"v1"}');
    expect(managerIdentifier(odd)).toBe('{"manager":1,"operation":"Update","apiVersion":"v1"}');
  });

  it('round-trips through parseManagerIdentifier', () => {
    const id = managerIdentifier({ manager: 'a', operation: 'Update', apiVersion: 'v1', subresource: 'scale' });
    expect(parseManagerIdentifier(id)).toEqual({ manager: 'a', operation: 'Update', apiVersion: 'v1', subresource: 'scale' });
    expect(parseManagerIdentifier('not json')).toBeUndefined();
  });
});

describe('printManager', () => {
  it('prints as kube conflict messages do', () => {
    expect(printManager(managerIdentifier({ manager: 'mgr', operation: 'Update', apiVersion: 'v1' }))).toBe('"mgr" using v1');
    expect(printManager(managerIdentifier({ manager: 'mgr', operation: 'Apply' }))).toBe('"mgr"');
    expect(printManager(managerIdentifier({ manager: 'c', operation: 'Update', apiVersion: 'apps/v1', subresource: 'status' }))).toBe(
      '"c" with subresource "status" using apps/v1',
    );
    expect(printManager('plain')).toBe('"plain"');
  });
});
