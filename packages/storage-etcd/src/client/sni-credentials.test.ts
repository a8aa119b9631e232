import { describe, expect, it } from 'vitest';
import { etcdEndpoint } from './etcd-endpoint.ts';
import { hostOf } from './sni-credentials.ts';

// The host a TLS connection is verified against (and sent as SNI when it is a name), from the target gRPC was given.
describe('hostOf', () => {
  it('takes the host out of the host:port of every kind of endpoint target', () => {
    const path = (url: string) => etcdEndpoint(url).target.slice('dns:'.length);
    expect(hostOf(path('https://127.0.0.1:2379'))).toBe('127.0.0.1');
    expect(hostOf(path('https://etcd-0.example:2379'))).toBe('etcd-0.example');
    expect(hostOf(path('https://[::1]:2379'))).toBe('::1');
    expect(hostOf(path('https://etcd-0.example'))).toBe('etcd-0.example');
    expect(hostOf('::1')).toBe('::1');
  });
});
