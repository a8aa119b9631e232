import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AdmissionAttributes } from '../attributes.ts';
import { admissionPlugin, denyAll } from '../plugin-factory.ts';
import { ALL_ORDERED_PLUGINS, DEFAULT_ON_PLUGINS } from './plugin-names.ts';
import { AdmissionPluginRegistry } from './plugin-registry.ts';

const attrs = (): AdmissionAttributes => ({
  operation: 'CREATE',
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  subresource: '',
  namespace: 'default',
  name: 'c',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
  oldObject: null,
  dryRun: false,
  userInfo: { name: 'alice', groups: [] },
});

/** A registry of kube's names whose plugins record their name when they admit, with the config they were made with. */
function registry(names: readonly string[], seen: string[] = [], configs: Record<string, unknown> = {}): AdmissionPluginRegistry {
  const r = new AdmissionPluginRegistry();
  for (const name of names) {
    r.register(name, (config) => {
      configs[name] = config;
      return admissionPlugin({ name, admit: () => void seen.push(name) });
    });
  }
  return r;
}

const KAPI = [
  'AlwaysAdmit',
  'AlwaysDeny',
  'NamespaceLifecycle',
  'OwnerReferencesPermissionEnforcement',
  'ResourceQuota',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
];

describe('AdmissionPluginRegistry', () => {
  it('by default the default-on plugins, in kube’s order whatever the registration order', () => {
    const r = registry([...KAPI].reverse());
    expect(r.registered()).toEqual([...KAPI].sort());
    expect(r.enabledPluginNames()).toEqual([
      'NamespaceLifecycle',
      'MutatingAdmissionWebhook',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionWebhook',
      'ResourceQuota',
    ]);
    expect(DEFAULT_ON_PLUGINS.every((n) => ALL_ORDERED_PLUGINS.includes(n))).toBe(true);
  });

  it('enabled = defaultOn ∪ enable − disable, in the recommended order (flag order does not matter)', () => {
    const r = registry(KAPI);
    expect(
      r.enabledPluginNames({
        enable: ['AlwaysDeny', 'OwnerReferencesPermissionEnforcement', 'AlwaysAdmit'],
        disable: ['ResourceQuota', 'MutatingAdmissionWebhook'],
      }),
    ).toEqual([
      'AlwaysAdmit',
      'NamespaceLifecycle',
      'OwnerReferencesPermissionEnforcement',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionWebhook',
      'AlwaysDeny',
    ]);
    expect(r.enabledPluginNames({ defaultOn: [], enable: ['ResourceQuota', 'NamespaceLifecycle'] })).toEqual([
      'NamespaceLifecycle',
      'ResourceQuota',
    ]);
  });

  it('kube’s errors: unknown names in either flag, a name in both, all reported together', () => {
    const r = registry(KAPI);
    expect(() => r.enabledPluginNames({ enable: ['PodSecurity'] })).toThrow(/^enable-admission-plugins plugin "PodSecurity" is unknown$/);
    expect(() => r.enabledPluginNames({ disable: ['Nope'] })).toThrow(/^disable-admission-plugins plugin "Nope" is unknown$/);
    expect(() => r.enabledPluginNames({ enable: ['AlwaysDeny', 'ResourceQuota'], disable: ['ResourceQuota', 'AlwaysDeny'] })).toThrow(
      /^\[AlwaysDeny ResourceQuota\] in enable-admission-plugins and disable-admission-plugins overlapped$/,
    );
    expect(() => r.enabledPluginNames({ enable: ['X', 'AlwaysDeny'], disable: ['AlwaysDeny'] })).toThrow(
      '[enable-admission-plugins plugin "X" is unknown, [AlwaysDeny] in enable-admission-plugins and disable-admission-plugins overlapped]',
    );
    expect(() => r.register('AlwaysDeny', () => denyAll())).toThrow('Admission plugin "AlwaysDeny" was registered twice');
  });

  it('plugins of other names run just before the ones kube keeps last, in registration order; an explicit order is checked as kube does', () => {
    const r = registry([...KAPI, 'MyDefaults', 'MyPolicy']);
    expect(r.enabledPluginNames({ enable: ['MyPolicy', 'MyDefaults', 'AlwaysDeny'] })).toEqual([
      'NamespaceLifecycle',
      'MyDefaults',
      'MyPolicy',
      'MutatingAdmissionWebhook',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionWebhook',
      'ResourceQuota',
      'AlwaysDeny',
    ]);
    const order = ['MyPolicy', ...KAPI, 'MyDefaults'];
    expect(r.enabledPluginNames({ order, defaultOn: [], enable: ['MyDefaults', 'MyPolicy', 'AlwaysAdmit'] })).toEqual([
      'MyPolicy',
      'AlwaysAdmit',
      'MyDefaults',
    ]);
    expect(() => r.enabledPluginNames({ order: [...KAPI, 'Ghost'] })).toThrow(
      '[plugins [Ghost] in RecommendedPluginOrder are not registered, plugins [MyDefaults MyPolicy] registered are not in RecommendedPluginOrder]',
    );
  });

  it('buildChain: the chain runs the enabled plugins in order, each made with its configuration', async () => {
    const seen: string[] = [];
    const configs: Record<string, unknown> = {};
    const r = registry(KAPI, seen, configs);
    const chain = r.buildChain({
      enable: ['AlwaysAdmit'],
      disable: ['ValidatingAdmissionPolicy'],
      config: {
        apiVersion: 'apiserver.config.k8s.io/v1',
        kind: 'AdmissionConfiguration',
        plugins: [
          {
            name: 'ResourceQuota',
            configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources: [] },
          },
        ],
      },
    });
    expect(chain.plugins.map((p) => p.name)).toEqual([
      'AlwaysAdmit',
      'NamespaceLifecycle',
      'MutatingAdmissionWebhook',
      'ValidatingAdmissionWebhook',
      'ResourceQuota',
    ]);
    await chain.admit(attrs());
    expect(seen).toEqual(['AlwaysAdmit', 'NamespaceLifecycle', 'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ResourceQuota']);
    expect(configs.ResourceQuota).toEqual({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'ResourceQuotaConfiguration',
      limitedResources: [],
    });
    expect(configs.NamespaceLifecycle).toBeUndefined();
    expect('ValidatingAdmissionPolicy' in configs).toBe(false);
  });

  it('buildChain with a config file: plugin files relative to it, read only for enabled plugins; kube’s errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kapi-admission-'));
    writeFileSync(
      join(dir, 'quota.yaml'),
      'apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources:\n- resource: widgets\n',
    );
    const file = join(dir, 'admission.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: ResourceQuota',
        '  path: quota.yaml',
        '- name: AlwaysDeny',
        '  path: missing.yaml',
      ].join('\n'),
    );
    const configs: Record<string, unknown> = {};
    registry(KAPI, [], configs).buildChain({ configFile: file });
    expect(configs.ResourceQuota).toEqual({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'ResourceQuotaConfiguration',
      limitedResources: [{ resource: 'widgets' }],
    });
    expect(() => registry(KAPI).buildChain({ configFile: file, enable: ['AlwaysDeny'] })).toThrow(
      `couldn't open admission plugin configuration ${join(dir, 'missing.yaml')}: open ${join(dir, 'missing.yaml')}: no such file or directory`,
    );
    expect(() => registry(KAPI).buildChain({ configFile: join(dir, 'nope.yaml') })).toThrow(
      `failed to read plugin config: unable to read admission control configuration from "${join(dir, 'nope.yaml')}" [open ${join(dir, 'nope.yaml')}: no such file or directory]`,
    );
  });

  it('a factory that throws fails the chain with kube’s "couldn\'t init admission plugin"; an unknown name in newFromPlugins too', () => {
    const r = new AdmissionPluginRegistry();
    r.register('ResourceQuota', (config) => {
      if (config === undefined) throw new Error('missing configuration');
      return admissionPlugin({ name: 'ResourceQuota' });
    });
    expect(() => r.buildChain({ defaultOn: ['ResourceQuota'] })).toThrow(
      'couldn\'t init admission plugin "ResourceQuota": missing configuration',
    );
    expect(() => r.newFromPlugins(['Nope'])).toThrow('unknown admission plugin: Nope');
    expect(() => r.buildChain({ defaultOn: ['Nope'] })).toThrow('unknown admission plugin: Nope');
  });
});
