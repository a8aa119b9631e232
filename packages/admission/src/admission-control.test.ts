import { type KubeObject, StatusError } from '@kapi/apimachinery';
import type { Authorizer } from '@kapi/authz';
import { ConfigMap, Namespace, type ResourceDefinition, Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { AdmissionControl, type AdmissionControlOptions } from './admission-control.ts';
import type { AdmissionAttributes } from './attributes.ts';
import { admissionPlugin } from './plugin-factory.ts';

/** A server's stores over one MemoryStorage: the kinds AdmissionControl serves plus Namespace and ConfigMap. */
function host(control: AdmissionControl) {
  const storage = new MemoryStorage();
  const defs = [Namespace, ConfigMap, ...control.provider().resources] as unknown as ResourceDefinition[];
  const stores = new Map<string, Store>();
  for (const def of defs) stores.set(def.group ? `${def.plural}.${def.group}` : def.plural, new Store(def, { storage }));
  return {
    store: (resource: string) => stores.get(resource),
    definitions: () => defs,
    get: (resource: string) => stores.get(resource) as Store,
  };
}

const ctx = { namespace: '' };

function createAttrs(obj: KubeObject, namespace = 'team'): AdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource: '',
    namespace,
    name: obj.metadata.name ?? '',
    object: obj,
    oldObject: null,
    dryRun: false,
    userInfo: { name: 'alice', groups: ['system:authenticated'] },
  };
}

const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'team' },
  data,
});

async function refusal(p: Promise<unknown>): Promise<StatusError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  return err as StatusError;
}

describe('AdmissionControl', () => {
  const started: AdmissionControl[] = [];
  const start = async (options: AdmissionControlOptions = {}) => {
    const control = new AdmissionControl({ onError: () => {}, ...options });
    const h = host(control);
    await h.get('namespaces').create(ctx, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', labels: { tier: 'gold' } } });
    started.push(control);
    await control.start(h);
    return { control, h };
  };
  afterEach(() => {
    for (const c of started.splice(0)) c.stop();
  });

  it("enables kube's default plugins in kube's order, and the flags' choices", () => {
    expect(new AdmissionControl().enabled).toEqual([
      'NamespaceLifecycle',
      'MutatingAdmissionWebhook',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionWebhook',
      'ResourceQuota',
    ]);
    const control = new AdmissionControl({ enable: ['AlwaysDeny', 'AlwaysAdmit'], disable: ['ResourceQuota', 'MutatingAdmissionWebhook'] });
    expect(control.enabled).toEqual([
      'AlwaysAdmit',
      'NamespaceLifecycle',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionWebhook',
      'AlwaysDeny',
    ]);
    expect(() => new AdmissionControl({ enable: ['NoSuchPlugin'] })).toThrow(/NoSuchPlugin/);
    expect(() => new AdmissionControl({ disable: ['NamespaceLifecycle'] })).toThrow(/cannot be disabled/);
  });

  it('runs a plugin of your own by name, before the webhooks, and AlwaysDeny refuses with kube’s message', async () => {
    const seen: string[] = [];
    const control = new AdmissionControl({
      enable: ['Recorder'],
      plugins: { Recorder: () => admissionPlugin({ name: 'Recorder', validate: (a) => void seen.push(a.name) }) },
    });
    expect(control.enabled.indexOf('Recorder')).toBeLessThan(control.enabled.indexOf('MutatingAdmissionWebhook'));
    await control.start(host(control));
    started.push(control);
    await control.chain.validate(createAttrs(cm('a')));
    expect(seen).toEqual(['a']);
    // Admission waits for its caches (kube's WaitForReady): started like a server starts it.
    const deny = new AdmissionControl({ enable: ['AlwaysDeny'], disable: ['ResourceQuota'] });
    await deny.start(host(deny));
    started.push(deny);
    const err = await refusal(deny.chain.admit(createAttrs(cm('b'))));
    expect(err.status.code).toBe(403);
    expect(err.status.message).toBe('configmaps "b" is forbidden: admission control is denying all modifications');
  });

  it('keeps policies, bindings and their params from the stores: a stored policy refuses, a deleted one no longer does', async () => {
    const { control, h } = await start();
    const policies = h.get('validatingadmissionpolicies.admissionregistration.k8s.io');
    const bindings = h.get('validatingadmissionpolicybindings.admissionregistration.k8s.io');
    await h.get('configmaps').create({ namespace: 'team' }, cm('limits', { maxKeys: '1' }));
    await policies.create(ctx, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'max-keys' },
      spec: {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [
          { expression: 'size(object.data) <= int(params.data.maxKeys)', messageExpression: "'at most ' + params.data.maxKeys" },
        ],
      },
    });
    await bindings.create(ctx, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'max-keys' },
      spec: {
        policyName: 'max-keys',
        validationActions: ['Deny'],
        paramRef: { name: 'limits', namespace: 'team', parameterNotFoundAction: 'Deny' },
        matchResources: { namespaceSelector: { matchLabels: { tier: 'gold' } } },
      },
    });
    const denied = async () => {
      try {
        await control.chain.validate(createAttrs(cm('big', { a: '1', b: '2' })));
        return undefined;
      } catch (e) {
        return (e as StatusError).status.message;
      }
    };
    await expect
      .poll(denied)
      .toBe(`configmaps "big" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys' denied request: at most 1`);
    await control.chain.validate(createAttrs(cm('small', { a: '1' })));
    await policies.delete(ctx, 'max-keys');
    await expect.poll(denied).toBeUndefined();
  });

  it('type-checks a policy into its status once its generation is new', async () => {
    const { h } = await start({
      kindSchemas: () => ({
        kindsFor: ({ resource }) => (resource === 'configmaps' ? [{ group: '', version: 'v1', kind: 'ConfigMap' }] : []),
        typeOf: () => ({ kind: 'object', name: 'ConfigMap', fields: { data: { kind: 'map', value: 'string' } } }) as never,
      }),
    });
    const policies = h.get('validatingadmissionpolicies.admissionregistration.k8s.io');
    await policies.create(ctx, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'typo' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [{ expression: 'object.dta.size() < 3' }],
      },
    });
    const status = async () => ((await policies.get(ctx, 'typo')) as { status?: Record<string, unknown> }).status;
    await expect.poll(async () => (await status())?.observedGeneration).toBe(1);
    const typeChecking = (await status())?.typeChecking as { expressionWarnings: { fieldRef: string; warning: string }[] } | undefined;
    const warnings = typeChecking?.expressionWarnings ?? [];
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fieldRef).toBe('spec.validations[0].expression');
    expect(warnings[0]?.warning).toMatch(/^\/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'dta'/);
  });

  it('OwnerReferencesPermissionEnforcement asks the server’s authorizer, read at each request', async () => {
    let allowed = false;
    const authorizer: Authorizer = { authorize: async () => ({ decision: allowed ? 'Allow' : 'Deny', reason: '' }) as never };
    const { control } = await start({
      enable: ['OwnerReferencesPermissionEnforcement'],
      disable: ['ResourceQuota'],
      authorizer: () => authorizer,
    });
    const owned = cm('owned');
    owned.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u1', blockOwnerDeletion: true }];
    const err = await refusal(control.chain.validate(createAttrs(owned)));
    expect(err.status.code).toBe(403);
    allowed = true;
    await control.chain.validate(createAttrs(owned));
  });
});
