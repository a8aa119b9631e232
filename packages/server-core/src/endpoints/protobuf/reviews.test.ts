import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { decodeKubernetesProtobuf, encodeKubernetesProtobuf, supportsKubernetesProtobuf } from './codec.ts';

/** Bodies kubectl 1.32 sent (captured with a logging server): `auth whoami`, `auth can-i create widgets`, `can-i get /healthz`, `can-i --list`. */
const KUBECTL = {
  whoami: 'azhzAAotChhhdXRoZW50aWNhdGlvbi5rOHMuaW8vdjESEVNlbGZTdWJqZWN0UmV2aWV3EhoKEAoAEgAaACIAKgAyADgAQgASBgoECgASABoAIgA=',
  whoamiBeta: 'azhzAAoyCh1hdXRoZW50aWNhdGlvbi5rOHMuaW8vdjFiZXRhMRIRU2VsZlN1YmplY3RSZXZpZXcSGgoQCgASABoAIgAqADIAOABCABIGCgQKABIAGgAiAA==',
  canICreateWidgets:
    'azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RBY2Nlc3NSZXZpZXcSQgoQCgASABoAIgAqADIAOABCABIkCiIKB2RlZmF1bHQSBmNyZWF0ZRoAIgAqB3dpZGdldHMyADoAGggIABIAGgAgABoAIgA=',
  canIGetHealthz:
    'azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RBY2Nlc3NSZXZpZXcSLwoQCgASABoAIgAqADIAOABCABIREg8KCC9oZWFsdGh6EgNnZXQaCAgAEgAaACAAGgAiAA==',
  canIList:
    'azhzAAoxChdhdXRob3JpemF0aW9uLms4cy5pby92MRIWU2VsZlN1YmplY3RSdWxlc1JldmlldxIjChAKABIAGgAiACoAMgA4AEIAEgkKB2RlZmF1bHQaBBgAIgAaACIA',
};
const decode = (b64: string): KubeObject => decodeKubernetesProtobuf(Uint8Array.from(Buffer.from(b64, 'base64')));

describe('protobuf of the review kinds kubectl auth sends', () => {
  it('decodes what kubectl sends as Go would write it as JSON', () => {
    expect(decode(KUBECTL.whoami)).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
      metadata: {},
      status: { userInfo: {} },
    });
    expect(decode(KUBECTL.whoamiBeta).apiVersion).toBe('authentication.k8s.io/v1beta1');
    expect(decode(KUBECTL.canICreateWidgets)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: {},
      spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'widgets' } },
      status: { allowed: false },
    });
    expect(decode(KUBECTL.canIGetHealthz).spec).toEqual({ nonResourceAttributes: { path: '/healthz', verb: 'get' } });
    expect(decode(KUBECTL.canIList)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      metadata: {},
      spec: { namespace: 'default' },
      status: { resourceRules: [], nonResourceRules: [], incomplete: false },
    });
  });

  it('round-trips every field of the reviews', () => {
    const ssr = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
      metadata: { creationTimestamp: '2026-01-01T00:00:00Z' },
      status: { userInfo: { username: 'bob', uid: '2', groups: ['a', 'b'], extra: { scopes: ['x', 'y'] } } },
    } as KubeObject;
    expect(decodeKubernetesProtobuf(encodeKubernetesProtobuf(ssr))).toEqual(ssr);
    const ssar = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: {},
      spec: {
        resourceAttributes: {
          namespace: 'ns',
          verb: 'list',
          group: 'apps',
          version: 'v1',
          resource: 'deployments',
          subresource: 'scale',
          name: 'web',
          fieldSelector: { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'In', values: ['b'] }] },
          labelSelector: { requirements: [{ key: 'app', operator: 'Exists' }] },
        },
      },
      status: { allowed: true, denied: true, reason: 'r', evaluationError: 'e' },
    } as KubeObject;
    expect(decodeKubernetesProtobuf(encodeKubernetesProtobuf(ssar))).toEqual(ssar);
    const ssrr = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      metadata: {},
      spec: { namespace: 'default' },
      status: {
        resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] }, { verbs: ['*'] }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        incomplete: true,
        evaluationError: 'partial',
      },
    } as KubeObject;
    // apiGroups [""] is a list of one empty string: kept, as Go keeps it.
    expect(decodeKubernetesProtobuf(encodeKubernetesProtobuf(ssrr))).toEqual(ssrr);
  });

  it('round-trips SubjectAccessReview and LocalSubjectAccessReview (the delegated-authorization API) with every field', () => {
    for (const kind of ['SubjectAccessReview', 'LocalSubjectAccessReview']) {
      const sar = {
        apiVersion: 'authorization.k8s.io/v1',
        kind,
        metadata: { namespace: 'ns' },
        spec: {
          resourceAttributes: {
            namespace: 'ns',
            verb: 'get',
            group: 'apps',
            version: 'v1',
            resource: 'deployments',
            subresource: 'status',
            name: 'web',
            labelSelector: { rawSelector: 'app=web' },
          },
          user: 'alice',
          groups: ['devs', 'system:authenticated'],
          extra: { scopes: ['a', 'b'], 'example.com/empty': [] },
          uid: 'u-1',
        },
        status: { allowed: false, denied: true, reason: 'no', evaluationError: 'partly' },
      } as KubeObject;
      expect(decodeKubernetesProtobuf(encodeKubernetesProtobuf(sar))).toStrictEqual(sar);
      const nonResource = {
        apiVersion: 'authorization.k8s.io/v1',
        kind,
        metadata: {},
        spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'bob' },
        status: { allowed: true },
      } as KubeObject;
      expect(decodeKubernetesProtobuf(encodeKubernetesProtobuf(nonResource))).toStrictEqual(nonResource);
    }
  });

  it('SubjectAccessReview as Go writes it: user, groups, extra and uid omitempty, status.allowed always', () => {
    const bare = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {} } as KubeObject;
    expect(decodeKubernetesProtobuf(encodeKubernetesProtobuf(bare))).toStrictEqual({ ...bare, spec: {}, status: { allowed: false } });
    const empty = { ...bare, spec: { user: '', groups: [], extra: {}, uid: '' } } as KubeObject;
    expect(decodeKubernetesProtobuf(encodeKubernetesProtobuf(empty))).toStrictEqual({ ...bare, spec: {}, status: { allowed: false } });
  });

  it('round-trips TokenReview (the delegated-authentication API) with every field, as Go writes it', () => {
    const review = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      metadata: {},
      spec: { token: 't0k3n', audiences: ['https://kapi.test'] },
      status: {
        authenticated: true,
        user: { username: 'carol', uid: '3', groups: ['dev'], extra: { scopes: ['x'] } },
        audiences: ['https://kapi.test'],
        error: 'partly',
      },
    } as KubeObject;
    expect(decodeKubernetesProtobuf(encodeKubernetesProtobuf(review))).toStrictEqual(review);
    // What client-go sends: a spec, a zero status (status.user is a struct, so Go writes it even when empty).
    const sent = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token: 't' } } as KubeObject;
    expect(decodeKubernetesProtobuf(encodeKubernetesProtobuf(sent))).toStrictEqual({ ...sent, status: { user: {} } });
  });

  it('knows the review kinds in the versions kubectl asks for, and no others', () => {
    expect(supportsKubernetesProtobuf('authentication.k8s.io/v1alpha1', 'SelfSubjectReview')).toBe(true);
    expect(supportsKubernetesProtobuf('authorization.k8s.io/v1', 'SelfSubjectRulesReview')).toBe(true);
    expect(supportsKubernetesProtobuf('authorization.k8s.io/v1', 'SubjectAccessReview')).toBe(true);
    expect(supportsKubernetesProtobuf('authorization.k8s.io/v1', 'LocalSubjectAccessReview')).toBe(true);
    expect(supportsKubernetesProtobuf('authentication.k8s.io/v1', 'TokenReview')).toBe(true);
    expect(supportsKubernetesProtobuf('authorization.k8s.io/v1beta1', 'SubjectAccessReview')).toBe(false);
  });
});
