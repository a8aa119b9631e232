import { newForbidden } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { AdmissionAttributes } from './attributes.ts';
import { admissionForbidden } from './forbidden.ts';

const base: AdmissionAttributes = {
  operation: 'CREATE',
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  subresource: '',
  namespace: 'default',
  name: '',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-' } },
  oldObject: null,
  dryRun: false,
  userInfo: { name: 'bob', groups: [] },
};

describe('admissionForbidden', () => {
  it('names the request, else the object’s name or generateName, else "Unknown"', () => {
    expect(admissionForbidden({ ...base, name: 'c1' }, 'no').message).toBe('configmaps "c1" is forbidden: no');
    expect(admissionForbidden(base, new Error('quota')).message).toBe('configmaps "cm-" is forbidden: quota');
    expect(admissionForbidden({ ...base, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n' } } }, 'x').message).toBe(
      'configmaps "n" is forbidden: x',
    );
    expect(admissionForbidden({ ...base, object: null }, 'x').message).toBe('configmaps "Unknown" is forbidden: x');
  });

  it('does not wrap a Forbidden twice', () => {
    const f = newForbidden('pods', 'p', 'already');
    expect(admissionForbidden(base, f)).toBe(f);
  });
});
