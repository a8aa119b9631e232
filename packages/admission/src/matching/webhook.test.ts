import { type KubeObject, StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { ValidatingWebhook } from '../admissionregistration/types.ts';
import type { MatchAttributes, NamespaceLookup } from './match-attributes.ts';
import { isExemptAdmissionConfigurationResource, matchWebhook } from './webhook.ts';

// After k8s.io/apiserver/pkg/admission/plugin/webhook/generic/webhook_test.go (TestShouldCallHook).

const namespaces: Record<string, KubeObject> = {
  prod: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod', labels: { env: 'prod' } } },
};
const lookup: NamespaceLookup = { getNamespace: (n) => namespaces[n] };

function attrs(over: Partial<MatchAttributes> = {}): MatchAttributes {
  return {
    operation: 'CREATE',
    kind: { group: 'apps', version: 'v1beta1', kind: 'Deployment' },
    resource: { group: 'apps', version: 'v1beta1', resource: 'deployments' },
    subresource: '',
    namespace: 'prod',
    name: 'd',
    object: { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'd', labels: { app: 'web' } } },
    oldObject: null,
    versions: { served: ['v1', 'v1beta1'] },
    ...over,
  };
}

const hook = (over: Partial<ValidatingWebhook> = {}): ValidatingWebhook => ({
  name: 'h.example.com',
  clientConfig: { url: 'https://h' },
  rules: [{ operations: ['*'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }],
  matchPolicy: 'Equivalent',
  namespaceSelector: {},
  objectSelector: {},
  ...over,
});

describe('matchWebhook', () => {
  it('Equivalent: matched through the served v1 and reports it', () => {
    expect(matchWebhook(hook(), attrs(), lookup)).toEqual({
      matches: true,
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      equivalent: true,
    });
  });

  it('Exact: no match for another version', () => {
    expect(matchWebhook(hook({ matchPolicy: 'Exact' }), attrs(), lookup)).toEqual({ matches: false });
  });

  it('selectors exclude before rules are looked at', () => {
    expect(matchWebhook(hook({ namespaceSelector: { matchLabels: { env: 'dev' } } }), attrs(), lookup).matches).toBe(false);
    expect(matchWebhook(hook({ objectSelector: { matchLabels: { app: 'db' } } }), attrs(), lookup).matches).toBe(false);
    expect(matchWebhook(hook({ objectSelector: { matchLabels: { app: 'web' } } }), attrs(), lookup).matches).toBe(true);
  });

  it('a missing namespace fails only a webhook whose rules match', () => {
    const sel = { namespaceSelector: { matchLabels: { env: 'prod' } } };
    const r = matchWebhook(hook(sel), attrs({ namespace: 'gone' }), lookup);
    expect(r.matches).toBe(false);
    expect(r.error instanceof StatusError && r.error.status.code).toBe(404);
    const other = hook({ ...sel, rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] });
    expect(matchWebhook(other, attrs({ namespace: 'gone' }), lookup)).toEqual({ matches: false });
  });

  it('exempts the admission configuration kinds', () => {
    expect(
      isExemptAdmissionConfigurationResource(
        attrs({ kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration' } }),
      ),
    ).toBe(true);
    expect(
      isExemptAdmissionConfigurationResource(
        attrs({ kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicyBinding' } }),
      ),
    ).toBe(true);
    expect(
      isExemptAdmissionConfigurationResource(
        attrs({ kind: { group: 'example.com', version: 'v1', kind: 'ValidatingWebhookConfiguration' } }),
      ),
    ).toBe(false);
    expect(isExemptAdmissionConfigurationResource(attrs())).toBe(false);
  });
});
