import { describe, expect, it } from 'vitest';
import { grpcTarget } from './grpc-target.ts';

describe('grpcTarget', () => {
  it('one endpoint: its host and port, 2379 when none is given', () => {
    expect(grpcTarget(['http://127.0.0.1:2379'])).toBe('dns:127.0.0.1:2379');
    expect(grpcTarget(['http://etcd.example:32379'])).toBe('dns:etcd.example:32379');
    expect(grpcTarget(['http://etcd'])).toBe('dns:etcd:2379');
    expect(grpcTarget(['10.0.0.1:2379'])).toBe('dns:10.0.0.1:2379');
    expect(grpcTarget(['http://[::1]:2379'])).toBe('dns:[::1]:2379');
  });

  it('several endpoints: an address list of one family', () => {
    expect(grpcTarget(['http://10.0.0.1:2379', 'http://10.0.0.2:2380'])).toBe('ipv4:10.0.0.1:2379,10.0.0.2:2380');
    expect(grpcTarget(['http://[::1]:2379', 'http://[fe80::1]:2379'])).toBe('ipv6:[::1]:2379,[fe80::1]:2379');
  });

  it('refuses what it cannot dial', () => {
    expect(() => grpcTarget([])).toThrow(/at least one endpoint/);
    expect(() => grpcTarget(['https://127.0.0.1:2379'])).toThrow(/only http/);
    expect(() => grpcTarget(['http://a.example:2379', 'http://b.example:2379'])).toThrow(/IPv4 or all IPv6/);
    expect(() => grpcTarget(['http://10.0.0.1:2379', 'http://[::1]:2379'])).toThrow(/IPv4 or all IPv6/);
    expect(() => grpcTarget(['http://'])).toThrow(/invalid endpoint/);
  });
});
