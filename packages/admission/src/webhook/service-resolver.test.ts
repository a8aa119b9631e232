import { describe, expect, it } from 'vitest';
import { endpointsServiceResolver, mapServiceResolver } from './service-resolver.ts';

describe('service resolvers', () => {
  it('resolves from a map by namespace/name:port, then namespace/name', () => {
    const r = mapServiceResolver({ 'ns/a:8443': 'https://127.0.0.1:1', 'ns/b': 'https://127.0.0.1:2' });
    expect(r.resolve('ns', 'a', 8443).host).toBe('127.0.0.1:1');
    expect(r.resolve('ns', 'b', 443).host).toBe('127.0.0.1:2');
    expect(() => r.resolve('ns', 'a', 443)).toThrow('service "a" in namespace "ns" (port 443) is not known to this server');
  });

  it("resolves through Service and Endpoints objects as kube's ResolveEndpoint", () => {
    const objects: Record<string, Record<string, unknown>> = {
      'services/ns/hook': { spec: { type: 'ClusterIP', ports: [{ name: 'https', port: 443 }] } },
      'endpoints/ns/hook': {
        subsets: [
          { addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'metrics', port: 9090 }] },
          { addresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'https', port: 8443 }] },
        ],
      },
      'services/ns/ext': { spec: { type: 'ExternalName' } },
      'services/ns/empty': { spec: { ports: [{ port: 443 }] } },
      'endpoints/ns/empty': { subsets: [{ addresses: [], ports: [{ port: 8443 }] }] },
    };
    const get = (kind: string) => (namespace: string, name: string) => {
      const o = objects[`${kind}/${namespace}/${name}`];
      return o ? { apiVersion: 'v1', kind, metadata: { name, namespace }, ...o } : undefined;
    };
    const r = endpointsServiceResolver({ getService: get('services'), getEndpoints: get('endpoints') });
    expect(r.resolve('ns', 'hook', 443).href).toBe('https://10.0.0.2:8443/');
    expect(() => r.resolve('ns', 'hook', 80)).toThrow('no service port 80 found for service "hook"');
    expect(() => r.resolve('ns', 'ext', 443)).toThrow('unsupported service type "ExternalName"');
    expect(() => r.resolve('ns', 'empty', 443)).toThrow('no endpoints available for service "empty"');
    expect(() => r.resolve('ns', 'missing', 443)).toThrow('service "missing" not found');
  });
});
