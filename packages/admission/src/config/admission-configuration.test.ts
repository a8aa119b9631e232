import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAdmissionConfiguration, pluginConfigFor, readAdmissionConfiguration } from './admission-configuration.ts';

describe('AdmissionConfiguration', () => {
  it('reads v1 YAML and v1alpha1 JSON; inline configuration kept as an object, relative paths made absolute against the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kapi-admission-config-'));
    const file = join(dir, 'admission.yaml');
    writeFileSync(
      file,
      `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: /etc/kapi/webhooks.kubeconfig
- name: ResourceQuota
  path: quota/config.yaml
- name: EventRateLimit
  path: /abs/erl.yaml
  unknownField: ignored
`,
    );
    const config = readAdmissionConfiguration(file);
    expect(config).toEqual({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [
        {
          name: 'ValidatingAdmissionWebhook',
          configuration: {
            apiVersion: 'apiserver.config.k8s.io/v1',
            kind: 'WebhookAdmissionConfiguration',
            kubeConfigFile: '/etc/kapi/webhooks.kubeconfig',
          },
        },
        { name: 'ResourceQuota', path: join(dir, 'quota/config.yaml') },
        { name: 'EventRateLimit', path: '/abs/erl.yaml' },
      ],
    });
    const json = parseAdmissionConfiguration(
      JSON.stringify({ apiVersion: 'apiserver.k8s.io/v1alpha1', kind: 'AdmissionConfiguration', plugins: [{ name: 'A', path: 'a.json' }] }),
    );
    expect(json.plugins).toEqual([{ name: 'A', path: resolve('a.json') }]);
    expect(parseAdmissionConfiguration('apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n').plugins).toEqual([]);
  });

  it('kube’s decoding errors: missing kind or apiVersion, a kind not registered in that version, a wrong type', () => {
    expect(() => parseAdmissionConfiguration('apiVersion: apiserver.config.k8s.io/v1\nplugins: []\n')).toThrow(
      `Object 'Kind' is missing in '{"apiVersion":"apiserver.config.k8s.io/v1","plugins":[]}'`,
    );
    expect(() => parseAdmissionConfiguration('kind: AdmissionConfiguration\n')).toThrow(
      `Object 'apiVersion' is missing in '{"kind":"AdmissionConfiguration"}'`,
    );
    expect(() => parseAdmissionConfiguration('apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: AdmissionConfiguration\n')).toThrow(
      /^no kind "AdmissionConfiguration" is registered for version "apiserver.config.k8s.io\/v1alpha1" in scheme /,
    );
    expect(() => parseAdmissionConfiguration('apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n')).toThrow(
      /^no kind "EncryptionConfiguration" is registered for version "apiserver.config.k8s.io\/v1"/,
    );
    expect(() => parseAdmissionConfiguration('apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: x\n')).toThrow(
      'json: cannot unmarshal string into Go struct field AdmissionConfiguration.plugins of type []v1.AdmissionPluginConfiguration',
    );
    expect(() =>
      parseAdmissionConfiguration('apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: 3\n'),
    ).toThrow('json: cannot unmarshal number into Go struct field AdmissionConfiguration.plugins.name of type string');
    expect(() => parseAdmissionConfiguration('a: [')).toThrow(/^error converting YAML to JSON: yaml: /);
  });

  it('pluginConfigFor: inline wins over path, a file is parsed (YAML or JSON) when asked for, none is undefined', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kapi-admission-config-'));
    writeFileSync(join(dir, 'a.json'), '{"kind":"A","n":1}');
    const config = parseAdmissionConfiguration(
      JSON.stringify({
        apiVersion: 'apiserver.config.k8s.io/v1',
        kind: 'AdmissionConfiguration',
        plugins: [{ name: 'A', path: 'a.json' }, { name: 'B', path: 'missing.yaml', configuration: { inline: true } }, { name: 'C' }],
      }),
      dir,
    );
    expect(pluginConfigFor(config, 'A')).toEqual({ kind: 'A', n: 1 });
    expect(pluginConfigFor(config, 'B')).toEqual({ inline: true });
    expect(pluginConfigFor(config, 'C')).toBeUndefined();
    expect(pluginConfigFor(config, 'D')).toBeUndefined();
    expect(pluginConfigFor(undefined, 'A')).toBeUndefined();
  });
});
