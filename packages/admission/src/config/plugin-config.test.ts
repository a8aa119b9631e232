import { describe, expect, it } from 'vitest';
import { decodePluginConfig } from './plugin-config.ts';

const QUOTA = [
  { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration' },
  { apiVersion: 'resourcequota.admission.k8s.io/v1beta1', kind: 'Configuration' },
];

describe('decodePluginConfig', () => {
  it('an accepted kind passes as it is; none is undefined', () => {
    const config = {
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'ResourceQuotaConfiguration',
      limitedResources: [{ resource: 'widgets' }],
    };
    expect(decodePluginConfig(config, QUOTA)).toBe(config);
    expect(decodePluginConfig({ apiVersion: 'resourcequota.admission.k8s.io/v1beta1', kind: 'Configuration' }, QUOTA)).toEqual({
      apiVersion: 'resourcequota.admission.k8s.io/v1beta1',
      kind: 'Configuration',
    });
    expect(decodePluginConfig(undefined, QUOTA)).toBeUndefined();
  });

  it('kube’s decoder errors for anything else', () => {
    expect(() => decodePluginConfig({ apiVersion: 'apiserver.config.k8s.io/v1' }, QUOTA)).toThrow(
      `Object 'Kind' is missing in '{"apiVersion":"apiserver.config.k8s.io/v1"}'`,
    );
    expect(() => decodePluginConfig({ kind: 'Configuration' }, QUOTA)).toThrow(
      `Object 'apiVersion' is missing in '{"kind":"Configuration"}'`,
    );
    expect(() => decodePluginConfig({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'Configuration' }, QUOTA, 'quota')).toThrow(
      'no kind "Configuration" is registered for version "apiserver.config.k8s.io/v1" in scheme "quota"',
    );
    expect(() => decodePluginConfig('x', QUOTA)).toThrow(
      /^couldn't get version\/kind; json parse error: json: cannot unmarshal string into Go value/,
    );
  });
});
