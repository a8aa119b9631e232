import { FakeClock, StatusError } from '@kapi/apimachinery';
import { Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from './types.ts';
import { MutatingWebhookConfigurationResource, ValidatingWebhookConfigurationResource } from './webhook-configuration-resources.ts';

// Cases after pkg/apis/admissionregistration/validation/validation_test.go and v1/defaults_test.go.

let memory: MemoryStorage;
let mutating: Store<MutatingWebhookConfiguration>;
let validating: Store<ValidatingWebhookConfiguration>;
const clock = new FakeClock(Date.parse('2026-03-01T10:00:00Z'));
beforeEach(() => {
  memory = new MemoryStorage({ compaction: false });
  mutating = new Store(MutatingWebhookConfigurationResource, { storage: memory, clock });
  validating = new Store(ValidatingWebhookConfigurationResource, { storage: memory, clock });
});
afterEach(() => memory.close());

const ctx = {};

function config<K extends 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration'>(kind: K, name: string, webhooks: unknown[]) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks } as never;
}
const mwc = (webhooks: unknown[], name = 'cfg') => config('MutatingWebhookConfiguration', name, webhooks);
const vwc = (webhooks: unknown[], name = 'cfg') => config('ValidatingWebhookConfiguration', name, webhooks);

const hook = (over: Record<string, unknown> = {}) => ({
  name: 'hook.example.com',
  clientConfig: { url: 'https://hook.example.com/admit' },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  ...over,
});

async function causes(p: Promise<unknown>): Promise<string[]> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  expect((err as StatusError).code).toBe(422);
  return ((err as StatusError).status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
}

describe('MutatingWebhookConfiguration and ValidatingWebhookConfiguration', () => {
  it('are cluster-scoped admissionregistration.k8s.io/v1 in the api-extensions category', () => {
    expect(MutatingWebhookConfigurationResource.groupResource).toEqual({
      group: 'admissionregistration.k8s.io',
      resource: 'mutatingwebhookconfigurations',
    });
    expect(ValidatingWebhookConfigurationResource.plural).toBe('validatingwebhookconfigurations');
    expect(MutatingWebhookConfigurationResource.namespaced).toBe(false);
    expect(MutatingWebhookConfigurationResource.categories).toEqual(['api-extensions']);
  });

  it('stores kube v1 defaults', async () => {
    const { object } = await mutating.create(ctx, mwc([hook({ clientConfig: { service: { namespace: 'ns', name: 'svc' } } })]));
    expect(object.metadata.generation).toBe(1);
    expect(object.webhooks?.[0]).toEqual({
      name: 'hook.example.com',
      clientConfig: { service: { namespace: 'ns', name: 'svc', port: 443 } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' }],
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      reinvocationPolicy: 'Never',
    });
    const v = await validating.create(ctx, vwc([hook()]));
    expect(v.object.webhooks?.[0]?.timeoutSeconds).toBe(10);
    expect(v.object.webhooks?.[0]).not.toHaveProperty('reinvocationPolicy');
  });

  it('keeps given values, drops null and empty omitempty lists', async () => {
    const { object } = await validating.create(
      ctx,
      vwc([hook({ failurePolicy: 'Ignore', matchPolicy: 'Exact', timeoutSeconds: 5, matchConditions: [], rules: null })]),
    );
    const w = object.webhooks?.[0];
    expect(w?.failurePolicy).toBe('Ignore');
    expect(w?.matchPolicy).toBe('Exact');
    expect(w?.timeoutSeconds).toBe(5);
    expect(w).not.toHaveProperty('matchConditions');
    expect(w).not.toHaveProperty('rules');
  });

  it('bumps generation only when webhooks change', async () => {
    const { object } = await validating.create(ctx, vwc([hook()]));
    const same = await validating.update(ctx, 'cfg', { ...object, metadata: { ...object.metadata, labels: { a: 'b' } } });
    expect(same.object.metadata.generation).toBe(1);
    const changed = await validating.update(ctx, 'cfg', { ...same.object, webhooks: [hook({ timeoutSeconds: 3 })] });
    expect(changed.object.metadata.generation).toBe(2);
  });

  it('requires sideEffects None/NoneOnDryRun and a known admissionReviewVersion', async () => {
    expect(await causes(mutating.create(ctx, mwc([hook({ sideEffects: undefined, admissionReviewVersions: undefined })])))).toEqual([
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
    ]);
    expect(await causes(mutating.create(ctx, mwc([hook({ sideEffects: 'Some', admissionReviewVersions: ['v2', 'v2'] })])))).toEqual([
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].admissionReviewVersions[1]: Invalid value: "v2": duplicate version',
      'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2", "v2"}: must include at least one of v1, v1beta1',
    ]);
  });

  it('refuses bad names, duplicate names, timeouts and enums', async () => {
    expect(
      await causes(
        validating.create(
          ctx,
          vwc([
            hook({ name: 'nodots', timeoutSeconds: 31 }),
            hook({ name: 'a.b.c', failurePolicy: 'Maybe', matchPolicy: 'Fuzzy' }),
            hook({ name: 'a.b.c' }),
            hook({ name: '' }),
          ]),
        ),
      ),
    ).toEqual([
      // the list-map check of the webhooks' key (the schema's x-kubernetes-list-type) comes before kube's own
      'webhooks[2]: Duplicate value: map[string]interface {}{"name":"a.b.c"}',
      'webhooks[0].name: Invalid value: "nodots": should be a domain with at least three segments separated by dots',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      'webhooks[1].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
      'webhooks[1].matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"',
      'webhooks[2].name: Duplicate value: "a.b.c"',
      'webhooks[3].name: Required value',
    ]);
    expect(await causes(mutating.create(ctx, mwc([hook({ reinvocationPolicy: 'Sometimes' })])))).toEqual([
      'webhooks[0].reinvocationPolicy: Unsupported value: "Sometimes": supported values: "IfNeeded", "Never"',
    ]);
  });

  it('checks clientConfig: exactly one of url and service, https without user, fragment or query', async () => {
    expect(await causes(validating.create(ctx, vwc([hook({ clientConfig: {} })])))).toEqual([
      'webhooks[0].clientConfig: Required value: exactly one of url or service is required',
    ]);
    expect(
      await causes(validating.create(ctx, vwc([hook({ clientConfig: { url: 'https://h/x', service: { namespace: 'n', name: 's' } } })]))),
    ).toEqual(['webhooks[0].clientConfig: Required value: exactly one of url or service is required']);
    expect(await causes(validating.create(ctx, vwc([hook({ clientConfig: { url: 'http://user:pw@h/x?a=b#f' } })])))).toEqual([
      `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'webhooks[0].clientConfig.url: Invalid value: "user:pw": user information is not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL',
    ]);
    expect(await causes(validating.create(ctx, vwc([hook({ clientConfig: { url: 'https://h:port/x' } })])))).toEqual([
      'webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://h:port/x": invalid port ":port" after host; desired format: https://host[/path]',
    ]);
    expect(await causes(validating.create(ctx, vwc([hook({ clientConfig: { url: 'example.com/x' } })])))).toEqual([
      `webhooks[0].clientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]',
    ]);
    expect(await causes(validating.create(ctx, vwc([hook({ clientConfig: { url: 'https://h/\u0001' } })])))).toEqual([
      'webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://h/\\x01": net/url: invalid control character in URL; desired format: https://host[/path]',
    ]);
    await validating.create(ctx, vwc([hook({ clientConfig: { url: 'https://[::1]:8443/admit?' } })], 'ipv6'));
    expect(await causes(validating.create(ctx, vwc([hook({ clientConfig: { url: 'https:///x' } })])))).toEqual([
      'webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]',
    ]);
    expect(
      await causes(validating.create(ctx, vwc([hook({ clientConfig: { service: { namespace: '', name: '', port: 0, path: 'a//B' } } })]))),
    ).toEqual([
      'webhooks[0].clientConfig.service.name: Required value',
      'webhooks[0].clientConfig.service.namespace: Required value',
      'webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
      `webhooks[0].clientConfig.service.path: Invalid value: "a//B": must start with a '/'`,
      // kube drops the first character whatever it is, leaving "//B"
      'webhooks[0].clientConfig.service.path: Invalid value: "a//B": segment[0] may not be empty',
      'webhooks[0].clientConfig.service.path: Invalid value: "a//B": segment[1] may not be empty',
      `webhooks[0].clientConfig.service.path: Invalid value: "a//B": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    // kube passes the Service's name and namespace to ValidateWebhookService the other way round
    // (kubernetes/kubernetes#141353): a missing name is blamed on the namespace.
    expect(
      await causes(validating.create(ctx, vwc([hook({ clientConfig: { service: { namespace: 'n', name: '', port: 443 } } })]))),
    ).toEqual(['webhooks[0].clientConfig.service.namespace: Required value']);
    expect(await causes(validating.create(ctx, vwc([hook({ clientConfig: { url: 'https://h', caBundle: 'abc' } })])))).toEqual([
      'webhooks[0].clientConfig.caBundle: Invalid value: illegal base64 data at input byte 0',
    ]);
  });

  it('checks rules: operations, groups, versions, resources, scope', async () => {
    const rule = (r: Record<string, unknown>) =>
      hook({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], ...r }] });
    expect(await causes(validating.create(ctx, vwc([rule({ operations: [], apiGroups: [], apiVersions: [], resources: [] })])))).toEqual([
      'webhooks[0].rules[0].operations: Required value',
      'webhooks[0].rules[0].apiGroups: Required value',
      'webhooks[0].rules[0].apiVersions: Required value',
      'webhooks[0].rules[0].resources: Required value',
    ]);
    expect(
      await causes(
        validating.create(
          ctx,
          vwc([
            rule({
              operations: ['*', 'PATCH'],
              apiGroups: ['*', 'apps'],
              apiVersions: ['', '*'],
              resources: ['*/*', 'pods'],
              scope: 'Global',
            }),
          ]),
        ),
      ),
    ).toEqual([
      `webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "PATCH"}: if '*' is present, must not specify other operations`,
      'webhooks[0].rules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      `webhooks[0].rules[0].apiGroups: Invalid value: []string{"*", "apps"}: if '*' is present, must not specify other API groups`,
      `webhooks[0].rules[0].apiVersions: Invalid value: []string{"", "*"}: if '*' is present, must not specify other API versions`,
      'webhooks[0].rules[0].apiVersions[0]: Required value',
      `webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "pods"}: if '*/*' is present, must not specify other resources`,
      'webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"',
    ]);
    expect(
      await causes(validating.create(ctx, vwc([rule({ resources: ['pods/*', 'pods/status', '*/scale', 'deployments/scale'] })]))),
    ).toEqual([
      `webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if 'pods/*' is present, must not specify pods/status`,
      `webhooks[0].rules[0].resources[3]: Invalid value: "deployments/scale": if '*/scale' is present, must not specify deployments/scale`,
    ]);
    // kube's quirk: only the last resource without a subresource counts, so '*' last passes
    await validating.create(ctx, vwc([rule({ resources: ['pods', '*'] })], 'quirk'));
    expect(await causes(validating.create(ctx, vwc([rule({ resources: ['*', 'pods'] })])))).toEqual([
      `webhooks[0].rules[0].resources: Invalid value: []string{"*", "pods"}: if '*' is present, must not specify other resources without subresources`,
    ]);
  });

  it('checks selectors and matchConditions', async () => {
    expect(
      await causes(
        validating.create(
          ctx,
          vwc([
            hook({
              namespaceSelector: { matchLabels: { 'bad key!': 'x' } },
              objectSelector: { matchExpressions: [{ key: 'a', operator: 'Foo' as never }] },
              matchConditions: [
                { name: 'a', expression: ' ' },
                { name: 'a', expression: 'true' },
                { name: '', expression: 'true' },
              ],
            }),
          ]),
        ),
      ),
    ).toEqual([
      'webhooks[0].matchConditions[1]: Duplicate value: map[string]interface {}{"name":"a"}',
      `webhooks[0].namespaceSelector.matchLabels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      'webhooks[0].objectSelector.matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator',
      'webhooks[0].matchConditions[0].expression: Required value',
      'webhooks[0].matchConditions[1].name: Duplicate value: "a"',
      'webhooks[0].matchConditions[2].name: Required value',
    ]);
  });

  it('compiles matchConditions with an ExpressionChecker', async () => {
    const { validatingWebhookConfigurationResource } = await import('./webhook-configuration-resources.ts');
    const seen: unknown[] = [];
    const def = validatingWebhookConfigurationResource((expression, check) => {
      seen.push({ expression, ...check });
      return expression === 'bad' ? { type: 'Invalid', detail: 'compilation failed' } : undefined;
    });
    const store = new Store(def, { storage: memory, clock });
    expect(await causes(store.create(ctx, vwc([hook({ matchConditions: [{ name: 'x', expression: 'bad' }] })])))).toEqual([
      'webhooks[0].matchConditions[0].expression: Invalid value: "bad": compilation failed',
    ]);
    expect(seen).toEqual([{ expression: 'bad', kind: 'matchCondition', params: false, stored: false }]);
  });

  it('update ratchets what the old object already had', async () => {
    // An object with sideEffects Unknown (kube's v1beta1 default, left in storage) may keep it on update.
    const old = vwc([hook({ sideEffects: 'Unknown' })]) as ValidatingWebhookConfiguration;
    const { validateWebhookConfigurationUpdate, validateWebhookConfigurationCreate } = await import('./validation.ts');
    expect(validateWebhookConfigurationUpdate(old, old, false)).toEqual([]);
    expect(validateWebhookConfigurationCreate(old, false).map((e) => e.field)).toEqual(['webhooks[0].sideEffects']);
    // duplicate names likewise, and an old object without them may not gain them
    const dup = { ...old, webhooks: [hook(), hook()] } as ValidatingWebhookConfiguration;
    expect(validateWebhookConfigurationUpdate(dup, dup, false)).toEqual([]);
    expect(validateWebhookConfigurationUpdate(dup, { ...old, webhooks: [hook()] } as ValidatingWebhookConfiguration, false)).toEqual([
      { type: 'FieldValueDuplicate', field: 'webhooks[1].name', badValue: 'hook.example.com' },
    ]);
    // A new object may not.
    expect(await causes(validating.create(ctx, vwc([hook({ sideEffects: 'Unknown' })], 'other')))).toEqual([
      'webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"',
    ]);
  });
});

describe('patches and server-side apply', () => {
  it('webhooks are a list keyed by name: two managers apply one webhook each', async () => {
    const applied = (name: string) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'cfg' },
      webhooks: [hook({ name })],
    });
    await validating.patch(ctx, 'cfg', applied('one.example.com'), 'apply', { fieldManager: 'a' });
    const r = await validating.patch(ctx, 'cfg', applied('two.example.com'), 'apply', { fieldManager: 'b' });
    expect(r.object.webhooks?.map((w) => w.name)).toEqual(['one.example.com', 'two.example.com']);
    // a strategic merge patch merges by name too
    const p = await validating.patch(ctx, 'cfg', { webhooks: [{ name: 'two.example.com', timeoutSeconds: 7 }] }, 'strategic');
    expect(p.object.webhooks?.map((w) => [w.name, w.timeoutSeconds])).toEqual([
      ['one.example.com', 10],
      ['two.example.com', 7],
    ]);
  });

  it('publishes the list types in OpenAPI', async () => {
    const { toOpenAPISchema } = await import('@kapi/registry');
    const schema = toOpenAPISchema(ValidatingWebhookConfigurationResource as never, 'v1') as {
      properties: Record<string, Record<string, unknown>>;
    };
    const webhooks = schema.properties.webhooks;
    expect(webhooks?.['x-kubernetes-list-type']).toBe('map');
    expect(webhooks?.['x-kubernetes-list-map-keys']).toEqual(['name']);
  });
});
