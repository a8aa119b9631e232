import { describe, expect, it } from 'vitest';
import { grpcTarget } from './grpc-target.ts';

describe('grpcTarget', () => {
  it('an endpoint: its host (a name or an address) and port, 2379 when none is given', () => {
    expect(grpcTarget('http://127.0.0.1:2379')).toBe('dns:127.0.0.1:2379');
    expect(grpcTarget('http://etcd.example:32379')).toBe('dns:etcd.example:32379');
    expect(grpcTarget('http://etcd')).toBe('dns:etcd:2379');
    expect(grpcTarget('10.0.0.1:2379')).toBe('dns:10.0.0.1:2379');
    expect(grpcTarget('http://[::1]:2379')).toBe('dns:[::1]:2379');
  });

  it('refuses what it cannot dial', () => {
    expect(() => grpcTarget('https://127.0.0.1:2379')).toThrow(/only http/);
    expect(() => grpcTarget('http://')).toThrow(/invalid endpoint/);
  });
});
