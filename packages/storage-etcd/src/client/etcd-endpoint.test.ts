import { describe, expect, it } from 'vitest';
import { etcdEndpoint } from './etcd-endpoint.ts';

const grpcTarget = (endpoint: string) => etcdEndpoint(endpoint).target;

describe('etcdEndpoint', () => {
  it('an endpoint: its host (a name or an address) and port, 2379 when none is given', () => {
    expect(grpcTarget('http://127.0.0.1:2379')).toBe('dns:127.0.0.1:2379');
    expect(grpcTarget('http://etcd.example:32379')).toBe('dns:etcd.example:32379');
    expect(grpcTarget('http://etcd')).toBe('dns:etcd:2379');
    expect(grpcTarget('10.0.0.1:2379')).toBe('dns:10.0.0.1:2379');
    expect(grpcTarget('http://[::1]:2379')).toBe('dns:[::1]:2379');
    expect(grpcTarget('https://etcd.example')).toBe('dns:etcd.example:2379');
  });

  it('https:// endpoints are dialled with TLS, http:// and bare host:port without', () => {
    expect(etcdEndpoint('https://127.0.0.1:2379')).toEqual({ url: 'https://127.0.0.1:2379', target: 'dns:127.0.0.1:2379', tls: true });
    expect(etcdEndpoint('http://127.0.0.1:2379').tls).toBe(false);
    expect(etcdEndpoint('127.0.0.1:2379').tls).toBe(false);
  });

  it('refuses what it cannot dial', () => {
    expect(() => grpcTarget('unix:///run/etcd.sock')).toThrow(/only http:\/\/ and https:\/\//);
    expect(() => grpcTarget('http://')).toThrow(/invalid endpoint/);
  });
});
