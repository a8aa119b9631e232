import { describe, expect, it } from 'vitest';
import { authorizationOptionsFromFlags } from './authorization-flags.ts';

describe('authorization flags (kube-apiserver --authorization-*, --anonymous-auth)', () => {
  it('reads the modes, files, webhook version and TTLs, and --anonymous-auth', () => {
    expect(authorizationOptionsFromFlags({})).toEqual({});
    expect(
      authorizationOptionsFromFlags({
        'authorization-mode': 'RBAC,ABAC,Webhook',
        'authorization-policy-file': '/p.jsonl',
        'authorization-webhook-config-file': '/w.kubeconfig',
        'authorization-webhook-version': 'v1',
        'authorization-webhook-cache-authorized-ttl': '1m0s',
        'authorization-webhook-cache-unauthorized-ttl': '5s',
        'anonymous-auth': 'false',
      }),
    ).toEqual({
      authorizationModes: ['RBAC', 'ABAC', 'Webhook'],
      authorizationPolicyFile: '/p.jsonl',
      authorizationWebhookConfigFile: '/w.kubeconfig',
      authorizationWebhookVersion: 'v1',
      authorizationWebhookAuthorizedTTLMs: 60_000,
      authorizationWebhookUnauthorizedTTLMs: 5000,
      anonymousAuth: false,
    });
  });

  it("refuses what kube-apiserver refuses, in kube's words", () => {
    expect(() => authorizationOptionsFromFlags({ 'authorization-mode': 'RBAC,Bogus' })).toThrow(
      'authorization-mode "Bogus" is not a valid mode',
    );
    expect(() => authorizationOptionsFromFlags({ 'authorization-mode': 'ABAC' })).toThrow(
      "authorization-mode ABAC's authorization policy file not passed",
    );
    // The default mode is RBAC, so a policy file alone names a mode that is not on.
    expect(() => authorizationOptionsFromFlags({ 'authorization-policy-file': '/p' })).toThrow(
      'cannot specify --authorization-policy-file without mode ABAC',
    );
    expect(() => authorizationOptionsFromFlags({ 'authorization-mode': 'RBAC,RBAC' })).toThrow('has mode specified more than once');
    expect(() => authorizationOptionsFromFlags({ 'authorization-mode': 'Node,RBAC' })).toThrow('this control plane has no node authorizer');
    expect(() => authorizationOptionsFromFlags({ 'anonymous-auth': 'yes' })).toThrow('--anonymous-auth must be true or false, not "yes"');
    expect(() => authorizationOptionsFromFlags({ 'authorization-webhook-version': 'v2' })).toThrow('must be v1 or v1beta1');
    expect(() => authorizationOptionsFromFlags({ 'authorization-webhook-cache-authorized-ttl': 'soon' })).toThrow('invalid duration');
  });
});
