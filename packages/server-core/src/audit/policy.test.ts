import { describe, expect, it } from 'vitest';
import { levelAtLeast, policyAtLevel } from './policy.ts';

describe('policyAtLevel / levelAtLeast', () => {
  it('a fixed level for every request; levels ordered None < Metadata < Request < RequestResponse', () => {
    const attrs = {
      user: { name: 'a', groups: [] },
      verb: 'get',
      resourceRequest: false,
      namespace: '',
      apiGroup: '',
      apiVersion: '',
      resource: '',
      subresource: '',
      name: '',
      path: '/',
    };
    expect(policyAtLevel('Request')(attrs)).toBe('Request');
    expect(levelAtLeast('RequestResponse', 'Request')).toBe(true);
    expect(levelAtLeast('Metadata', 'Request')).toBe(false);
    expect(levelAtLeast('None', 'None')).toBe(true);
  });
});
