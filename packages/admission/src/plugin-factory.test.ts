import { describe, expect, it } from 'vitest';
import { admissionPlugin, denyAll } from './plugin-factory.ts';

describe('admissionPlugin', () => {
  it('handles the given operations (all by default) and only has the functions given', () => {
    const p = admissionPlugin({ name: 'p', operations: ['CREATE', 'UPDATE'], admit: () => {} });
    expect(p.name).toBe('p');
    expect(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].map((o) => p.handles(o as 'CREATE'))).toEqual([true, true, false, false]);
    expect(p.admit).toBeTypeOf('function');
    expect(p.validate).toBeUndefined();
    expect(admissionPlugin({ name: 'all' }).handles('CONNECT')).toBe(true);
  });

  it('denyAll handles everything by default, named AlwaysDeny as in kube', () => {
    const d = denyAll();
    expect(d.name).toBe('AlwaysDeny');
    expect(d.handles('CONNECT')).toBe(true);
    expect(denyAll('x', ['DELETE']).handles('CREATE')).toBe(false);
  });
});
