import { makeTestCA } from '@kapi/test-servers';
import { describe, expect, it } from 'vitest';
import { EtcdStorage } from '../etcd-storage.ts';
import { etcdEndpoint } from './etcd-endpoint.ts';
import { channelCredentials } from './tls-credentials.ts';

// Mistakes in the TLS options fail when the store is made, before any connection.
describe('channelCredentials', () => {
  const https = [etcdEndpoint('https://127.0.0.1:2379'), etcdEndpoint('https://etcd.example:2379')];

  it('TLS for https:// endpoints (with or without a client certificate, default roots without a CA), plaintext for http://', async () => {
    const ca = await makeTestCA('creds-test');
    const client = await ca.issue({ cn: 'c', usage: 'client' });
    expect(channelCredentials(https, { ca: ca.pem, cert: client.cert, key: client.key })._isSecure()).toBe(true);
    expect(channelCredentials(https, { ca: Buffer.from(ca.pem) })._isSecure()).toBe(true);
    expect(channelCredentials(https, undefined)._isSecure()).toBe(true);
    expect(channelCredentials([etcdEndpoint('http://127.0.0.1:2379')], undefined)._isSecure()).toBe(false);
  });

  it('refuses mixed schemes, TLS options for http://, a certificate without its key, bad PEM and a key of another certificate', async () => {
    const ca = await makeTestCA('creds-test');
    const [a, b] = [await ca.issue({ cn: 'a', usage: 'client' }), await ca.issue({ cn: 'b', usage: 'client' })];
    const http = [etcdEndpoint('http://127.0.0.1:2379')];
    expect(() => channelCredentials([...https, ...http], undefined)).toThrow(/endpoints mix https:\/\/ and http:\/\//);
    expect(() => channelCredentials(http, { ca: ca.pem })).toThrow(/tls options were given for http:\/\/ endpoints/);
    expect(() => channelCredentials(https, { ca: ca.pem, cert: a.cert })).toThrow(/tls\.cert and tls\.key go together/);
    expect(() => channelCredentials(https, { ca: ca.pem, key: a.key })).toThrow(/tls\.cert and tls\.key go together/);
    expect(() => channelCredentials(https, { ca: ca.pem, cert: 'not a certificate', key: a.key })).toThrow(/invalid tls options/);
    expect(() => channelCredentials(https, { ca: ca.pem, cert: a.cert, key: b.key })).toThrow(/invalid tls options: .*mismatch/);
  });

  it('EtcdStorage passes its tls option on: a mistake is thrown by the constructor', () => {
    expect(() => new EtcdStorage({ endpoints: ['http://127.0.0.1:2379'], tls: {} })).toThrow(/tls options were given for http:\/\//);
  });
});
