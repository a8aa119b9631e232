import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import type { ControlPlane } from './control-plane.ts';
import { runKubectl, startTempControlPlane, stopTempControlPlane, succeeded } from './test-support/kubectl.ts';

/**
 * `kubectl auth whoami` and `kubectl auth can-i` (1.32, 1.27 and 1.33) against the example control plane: the admin of
 * the token file, impersonation with --as, AlwaysAllow's answers and rules (the control plane in --authorization-mode=AlwaysAllow). kubectl 1.27 sends JSON and asks for
 * authentication.k8s.io/v1beta1; later ones send protobuf and ask for v1 first.
 */

const binaries = kubectlBinaries(['kubectl', 'kubectl.1.27', 'kubectl.1.33']);

const T = 60_000;

/** Collapses runs of blanks, so table assertions don't depend on column widths. */
const squash = (s: string): string => s.replace(/[ \t]+/g, ' ');

describe.each(binaries.map((bin) => [basename(bin), bin] as const))('%s auth against the control plane', (_name, bin) => {
  let cp: ControlPlane;
  let tmp: string;

  beforeAll(async () => {
    // AlwaysAllow, so can-i has its answers whatever the user (kubectl-rbac.test.ts covers RBAC's).
    ({ cp, tmp } = await startTempControlPlane('kapi-kubectl-auth-', { authorizationModes: ['AlwaysAllow'] }));
  }, T);
  afterAll(() => stopTempControlPlane(cp, tmp), T);

  const run = (...args: string[]) => runKubectl(bin, tmp, cp.kubeconfigPath, args);
  const k = async (...args: string[]) => succeeded(args, await run(...args));

  it('auth whoami prints the admin of the token file', { timeout: T }, async () => {
    expect(squash(await k('auth', 'whoami'))).toBe(
      'ATTRIBUTE VALUE\nUsername kapi-admin\nUID kapi-admin\nGroups [system:masters system:authenticated]\n',
    );
  });

  it('auth whoami -o json and -o yaml give the SelfSubjectReview', { timeout: T }, async () => {
    const review = JSON.parse(await k('auth', 'whoami', '-o', 'json'));
    expect(review).toEqual({
      kind: 'SelfSubjectReview',
      apiVersion: expect.stringMatching(/^authentication\.k8s\.io\/v1(beta1)?$/),
      metadata: { creationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) },
      status: { userInfo: { username: 'kapi-admin', uid: 'kapi-admin', groups: ['system:masters', 'system:authenticated'] } },
    });
    // kubectl 1.27 asks for v1beta1 first; later ones for v1.
    expect(review.apiVersion).toBe(basename(bin) === 'kubectl.1.27' ? 'authentication.k8s.io/v1beta1' : 'authentication.k8s.io/v1');
    const yaml = await k('auth', 'whoami', '-o', 'yaml');
    expect(yaml).toContain('kind: SelfSubjectReview');
    expect(yaml).toContain('    username: kapi-admin');
  });

  it('auth whoami --as answers the impersonated user', { timeout: T }, async () => {
    expect(squash(await k('auth', 'whoami', '--as', 'bob'))).toBe('ATTRIBUTE VALUE\nUsername bob\nGroups [system:authenticated]\n');
    expect(squash(await k('auth', 'whoami', '--as', 'bob', '--as-group', 'devs'))).toBe(
      'ATTRIBUTE VALUE\nUsername bob\nGroups [devs system:authenticated]\n',
    );
  });

  it('auth can-i answers yes for resources, subresources, namespaces and non-resource URLs', { timeout: T }, async () => {
    expect(await k('auth', 'can-i', 'create', 'widgets')).toBe('yes\n');
    expect(await k('auth', 'can-i', '*', '*')).toBe('yes\n');
    expect(await k('auth', 'can-i', 'delete', 'configmaps', '--namespace', 'kube-system')).toBe('yes\n');
    expect(await k('auth', 'can-i', 'update', 'widgets', '--subresource', 'status')).toBe('yes\n');
    expect(await k('auth', 'can-i', 'get', 'widgets/w1')).toBe('yes\n');
    expect(await k('auth', 'can-i', 'get', '/healthz')).toBe('yes\n');
    expect(await k('auth', 'can-i', 'list', 'secrets', '--as', 'bob', '-A')).toBe('yes\n');
    const quiet = await run('auth', 'can-i', 'create', 'widgets', '--quiet');
    expect(quiet).toMatchObject({ code: 0, stdout: '' });
  });

  it('create -f of a SelfSubjectAccessReview prints the answered review; an invalid one is 422', { timeout: T }, async () => {
    const path = join(tmp, 'ssar.yaml');
    const yaml = ['apiVersion: authorization.k8s.io/v1', 'kind: SelfSubjectAccessReview', 'spec:'];
    await writeFile(path, [...yaml, '  resourceAttributes: {verb: create, group: example.kapi.dev, resource: widgets}', ''].join('\n'));
    expect(JSON.parse(await k('create', '-f', path, '-o', 'json'))).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { group: 'example.kapi.dev', resource: 'widgets', verb: 'create' } },
      status: { allowed: true },
    });
    await writeFile(path, [...yaml.slice(0, 2), 'spec: {}', ''].join('\n'));
    const invalid = await run('create', '-f', path, '-o', 'json');
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain(
      'The request is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  });

  it('auth can-i --list prints the rules of AlwaysAllow', { timeout: T }, async () => {
    const rows = squash(await k('auth', 'can-i', '--list'))
      .trim()
      .split('\n');
    expect(rows).toEqual(['Resources Non-Resource URLs Resource Names Verbs', '*.* [] [] [*]', ' [*] [] [*]']);
    const noHeaders = squash(await k('auth', 'can-i', '--list', '--no-headers', '--namespace', 'kube-system'))
      .trim()
      .split('\n');
    expect(noHeaders).toEqual(['*.* [] [] [*]', ' [*] [] [*]']);
  });
});
