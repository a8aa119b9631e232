import type { KubeObject } from '@kapi/apimachinery';
import type {
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicyBindingSpec,
  ValidatingAdmissionPolicySpec,
} from '../../admissionregistration/types.ts';
import type { NamespaceLookup } from '../../matching/match-attributes.ts';

/** A policy matching apps/v1 deployments on CREATE and UPDATE unless `spec` says otherwise. */
export function testPolicy(name: string, spec: ValidatingAdmissionPolicySpec): ValidatingAdmissionPolicy {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE', 'UPDATE'] }],
      },
      ...spec,
    },
  };
}

export function testBinding(name: string, spec: ValidatingAdmissionPolicyBindingSpec): ValidatingAdmissionPolicyBinding {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { validationActions: ['Deny'], ...spec },
  };
}

export function testNamespaces(...namespaces: { name: string; labels?: Record<string, string> }[]): NamespaceLookup {
  const objects = new Map<string, KubeObject>(
    namespaces.map((n) => [n.name, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: n.name, labels: n.labels ?? {} } }]),
  );
  return { getNamespace: (name) => objects.get(name) };
}
