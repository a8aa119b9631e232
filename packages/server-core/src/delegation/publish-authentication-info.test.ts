import { X509Certificate } from 'node:crypto';
import { staticCABundle } from '@kapi/authn';
import { ConfigMap, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { makeCA } from '../../../authn/test/pki.ts';
import { GenericAPIServer } from '../server/generic-api-server.ts';
import { AUTHENTICATION_INFO_NAME } from './authentication-info.ts';
import { publishAuthenticationInfo } from './publish-authentication-info.ts';

const ctx = { namespace: 'kube-system' };
const fingerprints = (pem: string | undefined): string[] =>
  (pem?.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((c) => new X509Certificate(c).fingerprint256);
const fp = (pem: string): string => new X509Certificate(pem).fingerprint256;
type WithData = { data: Record<string, string> };

describe('publishAuthenticationInfo', () => {
  const servers: GenericAPIServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.shutdown();
  });

  it('keeps what another server added when someone edits the ConfigMap, and puts its own values back', async () => {
    const [own, other, proxy] = await Promise.all([makeCA('own'), makeCA('other'), makeCA('proxy')]);
    const server = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, ConfigMap] });
    servers.push(server);
    publishAuthenticationInfo(server, {
      clientCA: staticCABundle(own.cert),
      requestHeader: { ca: staticCABundle(proxy.cert), allowedNames: ['front-proxy-client'] },
    });
    await server.start();
    const store = server.store('configmaps');
    if (!store) throw new Error('no configmaps');
    const current = structuredClone(await store.get(ctx, AUTHENTICATION_INFO_NAME)) as unknown as WithData;
    // Another API server's CA and proxy name replace ours (as a careless edit would).
    current.data['client-ca-file'] = other.cert;
    current.data['requestheader-allowed-names'] = '["other-proxy"]';
    await store.update(ctx, AUTHENTICATION_INFO_NAME, current);
    await expect
      .poll(async () => {
        const data = ((await store.get(ctx, AUTHENTICATION_INFO_NAME)) as unknown as WithData).data;
        return [fingerprints(data['client-ca-file']), data['requestheader-allowed-names']];
      })
      .toEqual([[fp(other.cert), fp(own.cert)], '["other-proxy","front-proxy-client"]']);
  });

  it('creates kube-system when it is missing; without a request-header CA only client-ca-file is written', async () => {
    const ca = await makeCA('client');
    const server = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, ConfigMap], defaultNamespaces: [] });
    servers.push(server);
    publishAuthenticationInfo(server, { clientCA: staticCABundle(ca.cert) });
    await server.start();
    expect(await server.store('namespaces')?.get({}, 'kube-system')).toMatchObject({ metadata: { name: 'kube-system' } });
    const cm = (await server.store('configmaps')?.get(ctx, AUTHENTICATION_INFO_NAME)) as unknown as WithData;
    expect(Object.keys(cm.data)).toEqual(['client-ca-file']);
  });

  it('a server without ConfigMaps starts, and reports why it cannot publish', async () => {
    const errors: unknown[] = [];
    const server = new GenericAPIServer({ storage: new MemoryStorage(), resources: [] });
    servers.push(server);
    publishAuthenticationInfo(server, { onError: (e) => errors.push(e) });
    await server.start();
    expect(String(errors[0])).toContain('publishAuthenticationInfo: the server does not serve configmaps');
  });
});
