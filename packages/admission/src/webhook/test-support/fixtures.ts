import type { KubeObject } from '@kapi/apimachinery';
import type {
  MutatingWebhook,
  MutatingWebhookConfiguration,
  ValidatingWebhook,
  ValidatingWebhookConfiguration,
} from '../../admissionregistration/types.ts';
import type { AdmissionAttributes } from '../../attributes.ts';
import type { NamespaceLookup } from '../../matching/match-attributes.ts';
import type { AdmissionWebhookServer } from './admission-webhook-server.ts';

/** Attributes of a write of a Widget (example.kapi.dev/v1) that record audit annotations and warnings. */
export type RecordingAttributes = AdmissionAttributes & { annotations: Record<string, string>; warnings: string[] };

export function widget(name = 'w1', labels: Record<string, string> = {}, spec: Record<string, unknown> = { size: 1 }): KubeObject {
  return { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name, namespace: 'default', labels }, spec };
}

export function widgetAttrs(over: Partial<AdmissionAttributes> = {}): RecordingAttributes {
  const annotations: Record<string, string> = {};
  const warnings: string[] = [];
  return {
    operation: 'CREATE',
    kind: { group: 'example.kapi.dev', version: 'v1', kind: 'Widget' },
    resource: { group: 'example.kapi.dev', version: 'v1', resource: 'widgets' },
    subresource: '',
    namespace: 'default',
    name: 'w1',
    object: widget(),
    oldObject: null,
    dryRun: false,
    userInfo: { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'] },
    operationOptions: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
    annotate: (k, v) => {
      annotations[k] = v;
    },
    warn: (m) => {
      warnings.push(m);
    },
    ...over,
    annotations,
    warnings,
  };
}

/** A webhook for widgets (all operations) calling `server` at `path`, with the defaults kube stores. */
export function hookFor<W extends ValidatingWebhook>(server: AdmissionWebhookServer, name: string, path: string, over: Partial<W> = {}): W {
  return {
    name,
    clientConfig: { url: `${server.url}${path}`, caBundle: server.caBundle },
    rules: [{ operations: ['*'], apiGroups: ['example.kapi.dev'], apiVersions: ['v1'], resources: ['widgets'], scope: '*' }],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    sideEffects: 'None',
    timeoutSeconds: 10,
    admissionReviewVersions: ['v1'],
    ...over,
  } as W;
}

export function mutatingConfig(name: string, webhooks: MutatingWebhook[]): MutatingWebhookConfiguration {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name }, webhooks };
}

export function validatingConfig(name: string, webhooks: ValidatingWebhook[]): ValidatingWebhookConfiguration {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks };
}

/** Namespaces by name with their labels. */
export function namespaces(labels: Record<string, Record<string, string>> = { default: {} }): NamespaceLookup {
  return {
    getNamespace: (name) =>
      labels[name] === undefined ? undefined : { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: labels[name] } },
  };
}
