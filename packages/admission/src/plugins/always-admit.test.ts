import { describe, expect, it } from 'vitest';
import type { Operation } from '../attributes.ts';
import { AdmissionChain } from '../chain.ts';
import { alwaysAdmit } from './always-admit.ts';

describe('AlwaysAdmit', () => {
  it('handles every operation and admits it, leaving the object as it was', async () => {
    const plugin = alwaysAdmit();
    expect(plugin.name).toBe('AlwaysAdmit');
    const ops: Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];
    expect(ops.every((op) => plugin.handles(op))).toBe(true);
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: { a: '1' } };
    const chain = new AdmissionChain([plugin]);
    for (const operation of ops) {
      const attrs = {
        operation,
        kind: { group: '', version: 'v1', kind: 'ConfigMap' },
        resource: { group: '', version: 'v1', resource: 'configmaps' },
        subresource: '',
        namespace: 'ns',
        name: 'c',
        object: structuredClone(object),
        oldObject: null,
        dryRun: false,
        userInfo: { name: 'alice', groups: [] },
      };
      await chain.admit(attrs);
      await chain.validate(attrs);
      expect(attrs.object).toEqual(object);
    }
  });
});
