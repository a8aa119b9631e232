import { describe, expect, it } from 'vitest';
import { parseEtcdURL } from './etcd-url.ts';

describe('parseEtcdURL', () => {
  it('one endpoint, or several separated by commas, each with port 2379 unless given, and an optional prefix', () => {
    expect(parseEtcdURL('etcd://127.0.0.1:2379/kapi')).toEqual({ endpoints: ['http://127.0.0.1:2379'], prefix: '/kapi' });
    expect(parseEtcdURL('etcd://etcd.example')).toEqual({ endpoints: ['http://etcd.example:2379'], prefix: '' });
    expect(parseEtcdURL('etcd://10.0.0.1:2379,10.0.0.2,10.0.0.3:32379/')).toEqual({
      endpoints: ['http://10.0.0.1:2379', 'http://10.0.0.2:2379', 'http://10.0.0.3:32379'],
      prefix: '',
    });
    expect(parseEtcdURL('etcd://[::1]:2379,[fe80::1]/a/b/')).toEqual({
      endpoints: ['http://[::1]:2379', 'http://[fe80::1]:2379'],
      prefix: '/a/b',
    });
  });

  it('etcds:// names the same members over TLS: https:// endpoints', () => {
    expect(parseEtcdURL('etcds://127.0.0.1:2379/kapi')).toEqual({ endpoints: ['https://127.0.0.1:2379'], prefix: '/kapi' });
    expect(parseEtcdURL('etcds://etcd-0.example,etcd-1.example:32379')).toEqual({
      endpoints: ['https://etcd-0.example:2379', 'https://etcd-1.example:32379'],
      prefix: '',
    });
  });

  it.each([
    ['http://127.0.0.1:2379', /must start with etcd:\/\/ \(or etcds:\/\/ for TLS\)/],
    ['https://127.0.0.1:2379', /must start with etcd:\/\//],
    ['etcds://', /no host given \(etcds:/],
    ['etcds://a,a:2379', /a:2379 is listed twice/],
    ['etcd://', /no host given/],
    ['etcd:///prefix', /no host given/],
    ['etcd://a:2379,,b:2379', /empty host in the list/],
    ['etcd://a:2379,', /empty host in the list/],
    ['etcd://a:0', /"0" is not a port/],
    ['etcd://a:70000', /"70000" is not a port/],
    ['etcd://a:x', /"x" is not a port/],
    ['etcd://a:', /"" is not a port/],
    ['etcd://::1:2379', /IPv6 address in brackets/],
    ['etcd://[nope]:2379', /not a bracketed IPv6 address/],
    ['etcd://[::1]x', /unexpected "x"/],
    ['etcd://a b:2379', /is not a host name or address/],
    ['etcd://user:pw@a:2379', /user information is not supported/],
    ['etcd://a:2379?x=1', /query or fragment/],
    ['etcd://a:2379,A:2379', /a:2379 is listed twice/],
    ['etcd://a,a:2379', /a:2379 is listed twice/],
  ])('%s is refused (%s)', (url, why) => {
    expect(() => parseEtcdURL(url)).toThrow(why);
    expect(() => parseEtcdURL(url)).toThrow(`invalid etcd URL ${JSON.stringify(url)}`);
  });
});
