import { once } from 'node:events';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { endpointsServiceResolver, mapServiceResolver } from '@kapi/admission';
import type { KubeObject } from '@kapi/apimachinery';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCA, type TestCA } from '../../../authn/src/test-support/test-ca.ts';
import type { APIService } from '../apiservice/types.ts';
import { RemoteServiceError, RemoteTransport, RemoteTransportError } from './remote-transport.ts';

const apiService = (spec: APIService['spec'], name = 'v1.wardle.example.com'): APIService => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name, resourceVersion: '1' },
  spec,
});

describe('RemoteTransport', () => {
  let serverCA: TestCA;
  let clientCA: TestCA;
  let server: Server;
  let url: string;
  const seen: { servername: string | undefined; clientCN: string | undefined }[] = [];

  beforeAll(async () => {
    serverCA = await makeTestCA('remote-server-ca');
    clientCA = await makeTestCA('proxy-client-ca');
    const serving = await serverCA.issue('CN=api.wardle.svc', 'server', ['api.wardle.svc']);
    server = createServer({ ...serving, ca: clientCA.pem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const socket = req.socket as TLSSocket;
      const peer = socket.getPeerCertificate();
      seen.push({ servername: socket.servername || undefined, clientCN: socket.authorized ? String(peer.subject?.CN) : undefined });
      res.end('ok');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const get = (transport: RemoteTransport, svc: APIService): Promise<string> => {
    const { url: target, agent } = transport.target(svc);
    return new Promise((resolve, reject) => {
      request({ hostname: target.hostname, port: target.port, path: '/apis', agent }, (res) => {
        res.setEncoding('utf8');
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(body));
      })
        .on('error', reject)
        .end();
    });
  };

  it('dials the resolved address, verifies the serving certificate for <name>.<namespace>.svc with the caBundle, and presents the proxy client certificate', async () => {
    const client = await clientCA.issue('CN=front-proxy-client', 'client');
    const transport = new RemoteTransport({
      serviceResolver: mapServiceResolver({ 'wardle/api:443': url }),
      proxyClientCert: client.cert,
      proxyClientKey: client.key,
    });
    const svc = apiService({ service: { namespace: 'wardle', name: 'api' }, caBundle: Buffer.from(serverCA.pem).toString('base64') });
    expect(transport.target(svc).servername).toBe('api.wardle.svc');
    expect(transport.resolve(svc).href).toBe(`${url}/`);
    seen.length = 0;
    expect(await get(transport, svc)).toBe('ok');
    expect(seen).toEqual([{ servername: 'api.wardle.svc', clientCN: 'front-proxy-client' }]);
    // Cached per APIService while its TLS settings stay.
    expect(transport.agent(svc)).toBe(transport.agent({ ...svc, metadata: { ...svc.metadata, resourceVersion: '2' } }));
    transport.close();
  });

  it('refuses a serving certificate the caBundle does not sign, unless insecureSkipTLSVerify', async () => {
    const otherCA = await makeTestCA('other');
    const transport = new RemoteTransport({ serviceResolver: mapServiceResolver({ 'wardle/api': url }) });
    const bad = apiService({ service: { namespace: 'wardle', name: 'api' }, caBundle: Buffer.from(otherCA.pem).toString('base64') });
    await expect(get(transport, bad)).rejects.toThrow(/certificate/);
    const insecure = apiService({ service: { namespace: 'wardle', name: 'api' }, insecureSkipTLSVerify: true });
    const before = transport.agent(bad);
    expect(transport.agent(insecure)).not.toBe(before);
    seen.length = 0;
    expect(await get(transport, insecure)).toBe('ok');
    // No proxy certificate configured: none presented.
    expect(seen[0]?.clientCN).toBeUndefined();
    // A caBundle without a certificate makes no transport (client-go's error).
    const garbage = apiService({ service: { namespace: 'wardle', name: 'api' }, caBundle: Buffer.from('not a pem').toString('base64') });
    expect(() => transport.agent(garbage)).toThrow(
      new RemoteTransportError('unable to load root certificates: unable to parse bytes as PEM block'),
    );
    transport.close();
  });

  it("classifies resolver failures with kube's availability reasons and messages", () => {
    const objects: Record<string, KubeObject> = {
      'services/ns/noport': { apiVersion: 'v1', kind: 'Service', metadata: {}, spec: { ports: [{ port: 80 }] } },
      'services/ns/noeps': { apiVersion: 'v1', kind: 'Service', metadata: {}, spec: { ports: [{ port: 443 }] } },
      'services/ns/empty': { apiVersion: 'v1', kind: 'Service', metadata: {}, spec: { ports: [{ name: 'https', port: 443 }] } },
      'endpoints/ns/empty': { apiVersion: 'v1', kind: 'Endpoints', metadata: {}, subsets: [] },
      'services/ns/ext': { apiVersion: 'v1', kind: 'Service', metadata: {}, spec: { type: 'ExternalName' } },
    };
    const transport = new RemoteTransport({
      serviceResolver: endpointsServiceResolver({
        getService: (ns, name) => objects[`services/${ns}/${name}`],
        getEndpoints: (ns, name) => objects[`endpoints/${ns}/${name}`],
      }),
    });
    const failure = (name: string, port?: number): RemoteServiceError => {
      try {
        transport.resolve(apiService({ service: { namespace: 'ns', name, ...(port ? { port } : {}) } }));
      } catch (err) {
        if (err instanceof RemoteServiceError) return err;
      }
      throw new Error('expected a RemoteServiceError');
    };
    expect([failure('missing').reason, failure('missing').message]).toEqual(['ServiceNotFound', 'service/missing in "ns" is not present']);
    expect([failure('noport').reason, failure('noport').message]).toEqual([
      'ServicePortError',
      'service/noport in "ns" is not listening on port 443',
    ]);
    expect([failure('noeps').reason, failure('noeps').message]).toEqual([
      'EndpointsNotFound',
      'cannot find endpoints for service/noeps in "ns"',
    ]);
    expect([failure('empty').reason, failure('empty').message]).toEqual([
      'MissingEndpoints',
      'endpoints for service/empty in "ns" have no addresses with port name "https"',
    ]);
    expect([failure('ext').reason, failure('ext').message]).toEqual(['FailedDiscoveryCheck', 'unsupported service type "ExternalName"']);
    const broken = new RemoteTransport({
      serviceResolver: {
        resolve() {
          throw new Error('informer not synced');
        },
      },
    });
    let err: unknown;
    try {
      broken.resolve(apiService({ service: { namespace: 'ns', name: 'x' } }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RemoteServiceError);
    expect((err as RemoteServiceError).reason).toBe('ServiceAccessError');
    expect((err as RemoteServiceError).message).toBe('service/x in "ns" cannot be checked due to: informer not synced');
  });
});
