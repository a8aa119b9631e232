import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import { type ControlPlane, startControlPlane } from '../../control-plane/src/control-plane.ts';
import { BACKENDS, startBackend, type TestBackend } from '../../control-plane/src/test-support/backends.ts';
import { kubectlArgs, kubectlEnv, runKubectl, stopTempControlPlane, succeeded } from '../../control-plane/src/test-support/kubectl.ts';
import { type AggregatedAPIServer, startAggregatedAPIServer } from './aggregated-apiserver.ts';
import { registerAPIService } from './register.ts';

/**
 * kubectl (1.32) through `npm start`'s aggregator against the example aggregated server, on memory, etcd and Redis
 * (the control plane and the example server each with a storage of their own on the backend): the APIService turns
 * Available, `api-resources` lists flunders and fischers, flunders are created, read, listed, watched and deleted
 * through the aggregator's proxy (BanFlunder admission included), a user RBAC does not allow is refused by the example's delegated authorization,
 * and with the example server stopped the APIService turns Available False and its paths answer 503.
 */

const [bin] = kubectlBinaries(['kubectl']);
const T = 60_000;
const BOB = 'bob-token-0123456789';
const APISERVICE = 'v1alpha1.wardle.example.com';
const squash = (s: string): string => s.replace(/[ \t]+/g, ' ');

describe.each(BACKENDS)('kubectl through the aggregator to the example aggregated server on %s', (backendName) => {
  let backend: TestBackend | undefined;
  let cp: ControlPlane | undefined;
  let wardle: AggregatedAPIServer | undefined;
  let tmp: string;

  beforeAll(async () => {
    backend = await startBackend(backendName);
    tmp = await mkdtemp(join(tmpdir(), 'kapi-kubectl-aggregated-'));
    const dataDir = join(tmp, 'data');
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    // The first line is the admin's (startControlPlane reads it); bob is in group dev only.
    await writeFile(
      join(dataDir, 'tokens.csv'),
      `admin-token-0123456789,kapi-admin,kapi-admin,"system:masters"\n${BOB},bob,bob-uid,"dev"\n`,
      {
        mode: 0o600,
      },
    );
    cp = await startControlPlane({ port: 0, dataDir, storage: backend.storage() });
    wardle = await startAggregatedAPIServer({ port: 0, kubeconfig: cp.kubeconfigPath, storage: backend.storage(), onError: () => {} });
    await registerAPIService({ kubeconfig: cp.kubeconfigPath, port: wardle.port, caBundle: wardle.caBundle });
  }, T);
  afterAll(async () => {
    try {
      await wardle?.stop();
      await stopTempControlPlane(cp, tmp);
    } finally {
      await backend?.stop();
    }
  }, T);

  const run = (...args: string[]) => runKubectl(bin as string, tmp, (cp as ControlPlane).kubeconfigPath, args);
  const k = async (...args: string[]) => succeeded(args, await run(...args));
  /** Polls `args` until its output matches `expected` (controllers and caches act a few ms behind a write). */
  const eventually = async (expected: RegExp, ...args: string[]) => {
    let r = await run(...args);
    for (let i = 0; i < 100 && !expected.test(squash(r.stdout + r.stderr)); i++) {
      await new Promise((res) => setTimeout(res, 100));
      r = await run(...args);
    }
    return squash(r.stdout + r.stderr);
  };
  const manifest = async (name: string, body: string): Promise<string> => {
    const path = join(tmp, name);
    await writeFile(path, body);
    return path;
  };

  it('registers: the APIService turns Available and api-resources lists the example kinds', { timeout: T }, async () => {
    expect(await eventually(new RegExp(`${APISERVICE} wardle/api True`), 'get', 'apiservice', APISERVICE)).toMatch(
      new RegExp(`^NAME SERVICE AVAILABLE AGE\n${APISERVICE} wardle/api True \\d+s\n$`),
    );
    const resources = squash(await k('api-resources', '--api-group', 'wardle.example.com')).split('\n');
    expect(resources).toContain('fischers wardle.example.com/v1alpha1 false Fischer');
    expect(resources).toContain('flunders wardle.example.com/v1alpha1 true Flunder');
    expect(await k('api-versions')).toContain('wardle.example.com/v1alpha1\n');
    // The example's OpenAPI is merged into the aggregator's (fetched once it is Available): kubectl explain reads it.
    const explained = await eventually(/referenceType <string>/, 'explain', 'flunders.spec');
    expect(explained).toContain('GROUP: wardle.example.com\nKIND: Flunder\nVERSION: v1alpha1\n');
    expect(explained).toContain('referenceType <string>');
    // What the aggregator resolves the APIService's Service through, with kube's columns.
    expect(squash(await k('get', 'service,endpoints', '-n', 'wardle'))).toMatch(
      new RegExp(
        `^NAME TYPE CLUSTER-IP EXTERNAL-IP PORT\\(S\\) AGE\nservice/api ClusterIP <none> <none> 443/TCP \\d+s\n\nNAME ENDPOINTS AGE\nendpoints/api 127\\.0\\.0\\.1:${(wardle as AggregatedAPIServer).port} \\d+s\n$`,
      ),
    );
  });

  it('creates, gets, lists, watches and deletes flunders through the aggregator', { timeout: T }, async () => {
    const first = await manifest(
      'f1.yaml',
      'apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata:\n  name: f1\nspec:\n  reference: fish\n  referenceType: Fischer\n',
    );
    expect(await k('create', '-f', first)).toBe('flunder.wardle.example.com/f1 created\n');
    const got = JSON.parse(await k('get', 'flunder', 'f1', '-o', 'json'));
    expect(got).toMatchObject({
      apiVersion: 'wardle.example.com/v1alpha1',
      kind: 'Flunder',
      metadata: { name: 'f1', namespace: 'default' },
      spec: { reference: 'fish', referenceType: 'Fischer' },
    });
    expect(squash(await k('get', 'flunders'))).toMatch(/^NAME AGE\nf1 \d+s\n$/);

    // A watch streams through the proxy: the existing flunder, then one created while it runs.
    const watch = spawn(
      bin as string,
      kubectlArgs(tmp, (cp as ControlPlane).kubeconfigPath, ['get', 'flunders', '--watch', '-o', 'name']),
      {
        env: kubectlEnv(tmp),
      },
    );
    let out = '';
    watch.stdout.setEncoding('utf8');
    const seen = (line: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (out.includes(line)) resolve();
        };
        watch.stdout.on('data', (c: string) => {
          out += c;
          check();
        });
        watch.on('exit', (code) => reject(new Error(`kubectl get --watch exited ${code}: ${out}`)));
        check();
      });
    try {
      await seen('flunder.wardle.example.com/f1\n');
      expect(
        await k(
          'create',
          '-f',
          await manifest('f2.yaml', 'apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata:\n  name: f2\n'),
        ),
      ).toBe('flunder.wardle.example.com/f2 created\n');
      await seen('flunder.wardle.example.com/f2\n');
    } finally {
      watch.kill();
    }

    expect(await k('delete', 'flunder', 'f1', 'f2')).toBe(
      'flunder.wardle.example.com "f1" deleted\nflunder.wardle.example.com "f2" deleted\n',
    );
    expect(await k('get', 'flunders')).toBe('');
    const cluster = await manifest(
      'fischer.yaml',
      'apiVersion: wardle.example.com/v1alpha1\nkind: Fischer\nmetadata:\n  name: fi\ndisallowedFlunders: [a, b]\n',
    );
    expect(await k('create', '-f', cluster)).toBe('fischer.wardle.example.com/fi created\n');
    expect(JSON.parse(await k('get', 'fischer', 'fi', '-o', 'json')).disallowedFlunders).toEqual(['a', 'b']);
    // sample-apiserver's BanFlunder admission: a name a Fischer disallows is refused.
    const banned = await run(
      'create',
      '-f',
      await manifest('a.yaml', 'apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata:\n  name: a\n'),
    );
    expect(banned.code).not.toBe(0);
    expect(banned.stderr).toBe(
      'Error from server (Forbidden): error when creating "' +
        join(tmp, 'a.yaml') +
        '": flunders.wardle.example.com "a" is forbidden: this name may not be used, please change the resource name\n',
    );
  });

  it('refuses a user the control plane’s RBAC does not allow (the example asks it by SubjectAccessReview)', { timeout: T }, async () => {
    const denied = await run('--token', BOB, 'get', 'flunders');
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain(
      'Error from server (Forbidden): flunders.wardle.example.com is forbidden: User "bob" cannot list resource "flunders" in API group "wardle.example.com" in the namespace "default"',
    );
    await k('create', 'clusterrole', 'flunder-viewer', '--verb', 'get,list,watch', '--resource', 'flunders.wardle.example.com');
    await k('create', 'clusterrolebinding', 'bob-flunder-viewer', '--clusterrole', 'flunder-viewer', '--user', 'bob');
    // Once RBAC's caches have the binding, bob may list flunders in every namespace (a request the example has not
    // asked about yet: it keeps SubjectAccessReview answers 10 s, as kube does).
    expect(await eventually(/^No resources found\n$/, '--token', BOB, 'get', 'flunders', '--all-namespaces')).toBe('No resources found\n');
  });

  it('with the example server stopped, the APIService turns Available False and its paths answer 503', { timeout: T }, async () => {
    await (wardle as AggregatedAPIServer).stop();
    // The availability controller checks again on a change of the APIService (else on its 30 s resync).
    await k('label', 'apiservice', APISERVICE, 'checked=again');
    const status = await eventually(new RegExp(`${APISERVICE} wardle/api False`), 'get', 'apiservice', APISERVICE);
    expect(status).toMatch(new RegExp(`\n${APISERVICE} wardle/api False \\(FailedDiscoveryCheck\\) \\d+s\n$`));
    const unavailable = await run('get', '--raw', '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders');
    expect(unavailable.code).not.toBe(0);
    expect(unavailable.stderr).toContain('Error from server (ServiceUnavailable): the server is currently unable to handle the request');
  });
});
