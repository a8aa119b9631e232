import { chmod, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import type { ControlPlane } from './control-plane.ts';
import { BACKENDS, startBackend, type TestBackend } from './test-support/backends.ts';
import { consistentReadFallbacks } from './test-support/consistent-read-fallbacks.ts';
import { kubectlArgs, kubectlEnv, runKubectl, startTempControlPlane, stopTempControlPlane, succeeded } from './test-support/kubectl.ts';
import { startProcess } from './test-support/test-process.ts';

/**
 * End to end: the real kubectl (1.32, 1.27 and 1.33) against the example control plane over HTTPS — every version on
 * memory, the current one on etcd and Redis too — one control plane per backend and version. Every test asserts on
 * what kubectl prints, as a user would see it against kube-apiserver.
 */

const binaries = kubectlBinaries(['kubectl', 'kubectl.1.27', 'kubectl.1.33']);

const T = 60_000;

/** Collapses runs of blanks, so table assertions don't depend on column widths. */
const squash = (s: string): string => s.replace(/[ \t]+/g, ' ');

function widgetYAML(
  name: string,
  replicas: number,
  extra: { color?: string; labels?: Record<string, string>; finalizers?: string[] } = {},
): string {
  const lines = ['apiVersion: example.kapi.dev/v1', 'kind: Widget', 'metadata:', `  name: ${name}`];
  if (extra.labels) {
    lines.push('  labels:');
    for (const [k, v] of Object.entries(extra.labels)) lines.push(`    ${k}: ${JSON.stringify(v)}`);
  }
  if (extra.finalizers) {
    lines.push('  finalizers:');
    for (const f of extra.finalizers) lines.push(`  - ${f}`);
  }
  lines.push('spec:', `  replicas: ${replicas}`);
  if (extra.color) lines.push(`  color: ${extra.color}`);
  return `${lines.join('\n')}\n`;
}

describe.each(BACKENDS)('on %s', (backendName) => {
  // One server per backend for this file; each control plane below stores apart on it.
  let backend: TestBackend;
  beforeAll(async () => {
    backend = await startBackend(backendName);
  }, T);
  afterAll(async () => {
    await backend?.stop();
  }, T);

  // Every kubectl version on memory; the storage-independent wire differences between versions need not run thrice.
  const versions = backendName === 'memory' ? binaries : binaries.slice(0, 1);
  describe.each(versions.map((bin) => [basename(bin), bin] as const))('%s against the control plane', (_name, bin) => {
    let cp: ControlPlane;
    let tmp: string;
    let file = 0;

    beforeAll(async () => {
      ({ cp, tmp } = await startTempControlPlane('kapi-kubectl-e2e-', { storage: backend.storage() }));
    }, T);
    afterAll(() => stopTempControlPlane(cp, tmp), T);

    /** Runs kubectl; resolves with the exit code instead of throwing. */
    const run = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runKubectl(bin, tmp, cp.kubeconfigPath, args, extraEnv);
    /** Runs kubectl and expects success; returns stdout. */
    const k = async (...args: string[]) => succeeded(args, await run(args));
    async function manifest(text: string): Promise<string> {
      const path = join(tmp, `manifest-${file++}.yaml`);
      await writeFile(path, text);
      return path;
    }

    it('api-resources and api-versions', { timeout: T }, async () => {
      const [resources, versions] = await Promise.all([k('api-resources'), k('api-versions')]);
      const rows = squash(resources).split('\n');
      expect(rows[0]).toMatch(/^NAME SHORTNAMES APIVERSION NAMESPACED KIND/);
      expect(rows).toContain('widgets wd example.kapi.dev/v1 true Widget');
      expect(rows).toContain('configmaps cm v1 true ConfigMap');
      expect(rows).toContain('namespaces ns v1 false Namespace');
      expect(rows).toContain('secrets v1 true Secret');
      expect(rows).toContain('events ev v1 true Event');
      expect(versions.split('\n')).toEqual(expect.arrayContaining(['example.kapi.dev/v1', 'v1']));
    });

    it('create -f and get in every output format', { timeout: T }, async () => {
      const path = await manifest(widgetYAML('w1', 3, { color: 'blue', labels: { tier: 'front' } }));
      expect(await k('create', '-f', path)).toBe('widget.example.kapi.dev/w1 created\n');

      const [table, wide, yaml, json, name, jsonpath, short] = await Promise.all([
        k('get', 'widgets'),
        k('get', 'widgets', '-o', 'wide'),
        k('get', 'widget', 'w1', '-o', 'yaml'),
        k('get', 'widget', 'w1', '-o', 'json'),
        k('get', 'widgets', '-o', 'name'),
        k('get', 'widget', 'w1', '-o', 'jsonpath={.spec.replicas}'),
        k('get', 'wd', 'w1'),
      ]);
      const tableRows = squash(table).trim().split('\n');
      expect(tableRows[0]).toBe('NAME REPLICAS READY AGE');
      // Ready (.status.replicas) is unset: a null cell, which kubectl prints empty (as for a CRD).
      expect(tableRows[1]).toMatch(/^w1 3 \d+s$/);
      const wideRows = squash(wide).trim().split('\n');
      expect(wideRows[0]).toBe('NAME REPLICAS READY AGE COLOR');
      expect(wideRows[1]).toMatch(/^w1 3 \d+s blue$/);
      expect(squash(short)).toContain('NAME REPLICAS READY AGE');
      expect(yaml).toContain('apiVersion: example.kapi.dev/v1');
      expect(yaml).toContain('kind: Widget');
      expect(yaml).toContain('  name: w1');
      expect(yaml).toContain('  namespace: default');
      expect(yaml).toContain('  replicas: 3');
      expect(yaml).toMatch(/ {2}uid: [0-9a-f-]{36}/);
      expect(yaml).toMatch(/ {2}resourceVersion: "\d+"/);
      expect(yaml).toMatch(/ {2}creationTimestamp: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/);
      const obj = JSON.parse(json);
      expect(obj).toMatchObject({
        apiVersion: 'example.kapi.dev/v1',
        kind: 'Widget',
        metadata: { name: 'w1', namespace: 'default', labels: { tier: 'front' } },
        spec: { replicas: 3, color: 'blue' },
      });
      expect(name).toBe('widget.example.kapi.dev/w1\n');
      expect(jsonpath).toBe('3');
    });

    it('get -w shows a change made while it watches', { timeout: T }, async () => {
      await k('create', '-f', await manifest(widgetYAML('watched', 1)));
      const watch = startProcess(bin, kubectlArgs(tmp, cp.kubeconfigPath, ['get', 'widgets', '-w', '--request-timeout=30s']), {
        env: kubectlEnv(tmp),
      });
      try {
        await watch.waitForStdout(/\nwatched +1 /, { timeoutMs: 20_000 });
        expect(squash(watch.stdout()).split('\n')[0]).toBe('NAME REPLICAS READY AGE');
        await k('scale', 'widget', 'watched', '--replicas=4');
        await watch.waitForStdout(/\nwatched +4 /, { timeoutMs: 20_000 });
      } finally {
        await watch.stop();
      }
    });

    it('apply -f: created, configured, unchanged', { timeout: T }, async () => {
      const path = join(tmp, 'apply.yaml');
      await writeFile(path, widgetYAML('a1', 1, { color: 'red' }));
      expect(await k('apply', '-f', path)).toBe('widget.example.kapi.dev/a1 created\n');
      const first = JSON.parse(await k('get', 'widget', 'a1', '-o', 'json'));
      const lastApplied1 = JSON.parse(first.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
      expect(lastApplied1.spec).toEqual({ replicas: 1, color: 'red' });

      await writeFile(path, widgetYAML('a1', 2, { color: 'green' }));
      expect(await k('apply', '-f', path)).toBe('widget.example.kapi.dev/a1 configured\n');
      const second = JSON.parse(await k('get', 'widget', 'a1', '-o', 'json'));
      expect(second.spec).toEqual({ replicas: 2, color: 'green' });
      const lastApplied2 = JSON.parse(second.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
      expect(lastApplied2.spec).toEqual({ replicas: 2, color: 'green' });

      expect(await k('apply', '-f', path)).toBe('widget.example.kapi.dev/a1 unchanged\n');
      const third = JSON.parse(await k('get', 'widget', 'a1', '-o', 'json'));
      expect(third.metadata.resourceVersion).toBe(second.metadata.resourceVersion);
    });

    it('patch: merge, json and strategic on a ConfigMap and a Widget', { timeout: T }, async () => {
      expect(await k('create', 'configmap', 'pcm', '--from-literal=a=1')).toBe('configmap/pcm created\n');
      await k('create', '-f', await manifest(widgetYAML('pw', 1)));

      expect(await k('patch', 'configmap', 'pcm', '--type=merge', '-p', '{"data":{"b":"2"}}')).toBe('configmap/pcm patched\n');
      expect(await k('patch', 'configmap', 'pcm', '--type=json', '-p', '[{"op":"add","path":"/data/c","value":"3"}]')).toBe(
        'configmap/pcm patched\n',
      );
      expect(await k('patch', 'configmap', 'pcm', '-p', '{"data":{"d":"4"}}')).toBe('configmap/pcm patched\n');
      expect(JSON.parse(await k('get', 'configmap', 'pcm', '-o', 'jsonpath={.data}'))).toEqual({ a: '1', b: '2', c: '3', d: '4' });

      expect(await k('patch', 'widget', 'pw', '--type=merge', '-p', '{"spec":{"color":"teal"}}')).toBe(
        'widget.example.kapi.dev/pw patched\n',
      );
      expect(await k('patch', 'widget', 'pw', '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":7}]')).toBe(
        'widget.example.kapi.dev/pw patched\n',
      );
      expect(await k('patch', 'widget', 'pw', '-p', '{"metadata":{"labels":{"via":"strategic"}}}')).toBe(
        'widget.example.kapi.dev/pw patched\n',
      );
      const w = JSON.parse(await k('get', 'widget', 'pw', '-o', 'json'));
      expect(w.spec).toEqual({ replicas: 7, color: 'teal' });
      expect(w.metadata.labels).toEqual({ via: 'strategic' });
      // A patch that changes nothing says so.
      expect(await k('patch', 'widget', 'pw', '--type=merge', '-p', '{"spec":{"color":"teal"}}')).toBe(
        'widget.example.kapi.dev/pw patched (no change)\n',
      );
    });

    it('label and annotate (add, --overwrite, remove)', { timeout: T }, async () => {
      await k('create', '-f', await manifest(widgetYAML('lw', 1)));
      expect(await k('label', 'widget', 'lw', 'env=dev')).toBe('widget.example.kapi.dev/lw labeled\n');
      const clash = await run(['label', 'widget', 'lw', 'env=prod']);
      expect(clash.code).toBe(1);
      expect(clash.stderr).toContain("'env' already has a value (dev), and --overwrite is false");
      expect(await k('label', 'widget', 'lw', 'env=prod', '--overwrite')).toBe('widget.example.kapi.dev/lw labeled\n');
      // kubectl 1.27 printed "annotate" (its print flags' operation); later versions print "annotated".
      const annotated = bin.endsWith('.1.27') ? 'annotate' : 'annotated';
      expect(await k('annotate', 'widget', 'lw', 'note=hello')).toBe(`widget.example.kapi.dev/lw ${annotated}\n`);
      let w = JSON.parse(await k('get', 'widget', 'lw', '-o', 'json'));
      expect(w.metadata.labels).toEqual({ env: 'prod' });
      expect(w.metadata.annotations).toMatchObject({ note: 'hello' });
      expect(await k('label', 'widget', 'lw', 'env-')).toBe('widget.example.kapi.dev/lw unlabeled\n');
      expect(await k('annotate', 'widget', 'lw', 'note-')).toBe(`widget.example.kapi.dev/lw ${annotated}\n`);
      w = JSON.parse(await k('get', 'widget', 'lw', '-o', 'json'));
      expect(w.metadata.labels?.env).toBeUndefined();
      expect(w.metadata.annotations?.note).toBeUndefined();
    });

    it('scale and edit', { timeout: T }, async () => {
      await k('create', '-f', await manifest(widgetYAML('sw', 1)));
      expect(await k('scale', 'widget', 'sw', '--replicas=5')).toBe('widget.example.kapi.dev/sw scaled\n');
      expect(await k('get', 'widget', 'sw', '-o', 'jsonpath={.spec.replicas}')).toBe('5');
      expect(squash(await k('get', 'widget', 'sw'))).toMatch(/\nsw 5 \d+s\n/);

      const editor = join(tmp, 'editor.sh');
      await writeFile(editor, `#!/bin/sh\nsed -i 's/replicas: 5/replicas: 6/' "$1"\n`);
      await chmod(editor, 0o755);
      const edited = await run(['edit', 'widget', 'sw'], { KUBE_EDITOR: editor, EDITOR: editor });
      expect(edited.stderr).toBe('');
      expect(edited.stdout).toBe('widget.example.kapi.dev/sw edited\n');
      expect(edited.code).toBe(0);
      expect(await k('get', 'widget', 'sw', '-o', 'jsonpath={.spec.replicas}')).toBe('6');
    });

    it('delete: plain, a namespace with --wait, an object held by a finalizer', { timeout: T }, async () => {
      await k('create', '-f', await manifest(widgetYAML('dw', 1)));
      expect(await k('delete', 'widget', 'dw')).toBe('widget.example.kapi.dev "dw" deleted\n');
      const gone = await run(['get', 'widget', 'dw']);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toContain('widgets.example.kapi.dev "dw" not found');

      // A namespace with something in it: the namespace controller empties it, then removes the finalizer.
      expect(await k('create', 'namespace', 'doomed')).toBe('namespace/doomed created\n');
      await k('create', 'configmap', 'inside', '-n', 'doomed', '--from-literal=k=v');
      await k('create', '-n', 'doomed', '-f', await manifest(widgetYAML('inside', 1)));
      expect(await k('delete', 'namespace', 'doomed', '--wait', '--timeout=30s')).toBe('namespace "doomed" deleted\n');
      const nsGone = await run(['get', 'namespace', 'doomed']);
      expect(nsGone.code).toBe(1);
      expect(nsGone.stderr).toContain('Error from server (NotFound): namespaces "doomed" not found');

      // An object with a finalizer stays, marked for deletion, until the finalizer is removed.
      await k('create', '-f', await manifest(widgetYAML('held', 1, { finalizers: ['example.kapi.dev/hold'] })));
      expect(await k('delete', 'widget', 'held', '--wait=false')).toBe('widget.example.kapi.dev "held" deleted\n');
      const held = JSON.parse(await k('get', 'widget', 'held', '-o', 'json'));
      expect(held.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(held.metadata.finalizers).toEqual(['example.kapi.dev/hold']);
      expect(await k('patch', 'widget', 'held', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]')).toBe(
        'widget.example.kapi.dev/held patched\n',
      );
      const heldGone = await run(['get', 'widget', 'held']);
      expect(heldGone.code).toBe(1);
      expect(heldGone.stderr).toContain('widgets.example.kapi.dev "held" not found');
    });

    it('explain', { timeout: T }, async () => {
      const [kind, field] = await Promise.all([k('explain', 'widgets'), k('explain', 'widgets.spec.replicas')]);
      const k1 = squash(kind);
      expect(k1).toContain('KIND: Widget');
      expect(k1).toMatch(/VERSION: (example\.kapi\.dev\/)?v1/);
      expect(k1).toContain('spec');
      expect(k1).toContain('What the widget should look like.');
      const f = squash(field);
      expect(f).toContain('FIELD: replicas <integer>');
      expect(f).toContain('How many copies of the widget should exist.');
    });

    it('--dry-run=server changes nothing', { timeout: T }, async () => {
      await k('create', '-f', await manifest(widgetYAML('dry-keep', 1)));
      const before = await k('get', 'widget', 'dry-keep', '-o', 'jsonpath={.metadata.resourceVersion}');
      expect(await k('create', '-f', await manifest(widgetYAML('dry-new', 1)), '--dry-run=server')).toBe(
        'widget.example.kapi.dev/dry-new created (server dry run)\n',
      );
      expect(await k('delete', 'widget', 'dry-keep', '--dry-run=server')).toBe(
        'widget.example.kapi.dev "dry-keep" deleted (server dry run)\n',
      );
      const missing = await run(['get', 'widget', 'dry-new']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('widgets.example.kapi.dev "dry-new" not found');
      expect(await k('get', 'widget', 'dry-keep', '-o', 'jsonpath={.metadata.resourceVersion}')).toBe(before);
    });

    it('-l, --field-selector and --chunk-size pagination', { timeout: T }, async () => {
      const docs = [1, 2, 3, 4, 5].map((i) => widgetYAML(`page-${i}`, i, { labels: { batch: 'p', parity: i % 2 ? 'odd' : 'even' } }));
      expect(await k('create', '-f', await manifest(docs.join('---\n')))).toBe(
        [1, 2, 3, 4, 5].map((i) => `widget.example.kapi.dev/page-${i} created\n`).join(''),
      );
      const [odd, byField, paged] = await Promise.all([
        k('get', 'widgets', '-l', 'batch=p,parity=odd', '-o', 'name'),
        k('get', 'widgets', '--field-selector', 'metadata.name=page-2', '-o', 'name'),
        run(['get', 'widgets', '-l', 'batch=p', '--chunk-size=2', '-v=6']),
      ]);
      expect(odd).toBe(['page-1', 'page-3', 'page-5'].map((n) => `widget.example.kapi.dev/${n}\n`).join(''));
      expect(byField).toBe('widget.example.kapi.dev/page-2\n');
      expect(paged.code).toBe(0);
      const rows = squash(paged.stdout).trim().split('\n');
      expect(rows[0]).toBe('NAME REPLICAS READY AGE');
      expect(rows.slice(1).map((r) => r.split(' ')[0])).toEqual(['page-1', 'page-2', 'page-3', 'page-4', 'page-5']);
      // `GET https://…?limit=2 200 OK in 5 milliseconds` (≤1.32) or `"Response" verb="GET" url="https://…" status="200 OK"` (1.33).
      const requests = paged.stderr.split('\n').filter((l) => /GET"? (url=")?https:\/\/[^\s"]+\/widgets\?[^\s"]*limit=2/.test(l));
      expect(requests.length, paged.stderr).toBe(3);
      expect(requests.filter((l) => /[?&]continue=/.test(l)).length).toBe(2);
      expect(requests.every((l) => / 200 OK |status="200 OK"/.test(l))).toBe(true);
    });

    it('get --raw', { timeout: T }, async () => {
      const [apis, core, healthz, readyz, metrics] = await Promise.all([
        k('get', '--raw', '/apis'),
        k('get', '--raw', '/api/v1'),
        k('get', '--raw', '/healthz'),
        k('get', '--raw', '/readyz?verbose'),
        k('get', '--raw', '/metrics'),
      ]);
      const groups = JSON.parse(apis);
      expect(groups.kind).toBe('APIGroupList');
      expect(groups.groups).toContainEqual(
        expect.objectContaining({ name: 'example.kapi.dev', preferredVersion: { groupVersion: 'example.kapi.dev/v1', version: 'v1' } }),
      );
      const list = JSON.parse(core);
      expect(list.kind).toBe('APIResourceList');
      expect(list.groupVersion).toBe('v1');
      expect(list.resources.map((r: { name: string }) => r.name)).toEqual(
        expect.arrayContaining(['configmaps', 'namespaces', 'secrets', 'events']),
      );
      expect(healthz).toBe('ok');
      expect(readyz).toContain('[+]informer-sync ok');
      expect(readyz).toContain('[+]poststarthook/start-namespace-controller ok');
      expect(readyz).toContain('readyz check passed');
      expect(metrics).toContain('# TYPE apiserver_request_total counter');
      expect(metrics).toMatch(/apiserver_request_total\{[^}]*resource="widgets"[^}]*\} \d+/);
    });

    it('create configmap / secret generic / namespace', { timeout: T }, async () => {
      const [verbose, secret, ns] = await Promise.all([
        run(['create', 'configmap', 'made', '--from-literal=greeting=hello', '-v=8']),
        k('create', 'secret', 'generic', 'made', '--from-literal=password=s3cret'),
        k('create', 'namespace', 'made'),
      ]);
      expect(verbose.code).toBe(0);
      expect(verbose.stdout).toBe('configmap/made created\n');
      // The typed clients of kubectl ≥1.32 send the body as Kubernetes protobuf (1.27 sends JSON).
      expect(verbose.stderr).toMatch(
        bin.endsWith('.1.27') ? /Content-Type: application\/json/ : /Content-Type: application\/vnd\.kubernetes\.protobuf/,
      );
      expect(secret).toBe('secret/made created\n');
      expect(ns).toBe('namespace/made created\n');
      const [cmData, secretData, nsPhase] = await Promise.all([
        k('get', 'configmap', 'made', '-o', 'jsonpath={.data.greeting}'),
        k('get', 'secret', 'made', '-o', 'jsonpath={.data.password}'),
        k('get', 'namespace', 'made', '-o', 'jsonpath={.status.phase}'),
      ]);
      expect(cmData).toBe('hello');
      expect(Buffer.from(secretData, 'base64').toString()).toBe('s3cret');
      expect(nsPhase).toBe('Active');
    });

    // kapi converts every kind to a table as kube does custom resources (Name, then the printer columns or Age);
    // kube-apiserver's built-in printers: Secret TYPE and DATA (key count), ConfigMap DATA, Namespace STATUS.
    it("get secret / configmap / namespace print kube-apiserver's built-in columns", { timeout: T }, async () => {
      await Promise.all([
        k('create', 'configmap', 'columns', '--from-literal=a=1', '--from-literal=b=2'),
        k('create', 'secret', 'generic', 'columns', '--from-literal=password=s3cret'),
      ]);
      const [secret, cm] = await Promise.all([k('get', 'secret', 'columns'), k('get', 'configmap', 'columns')]);
      expect(squash(secret)).toMatch(/^NAME TYPE DATA AGE\ncolumns Opaque 1 \d+s\n$/);
      expect(squash(cm)).toMatch(/^NAME DATA AGE\ncolumns 2 \d+s\n$/);
      expect(squash(await k('get', 'namespace', 'default'))).toMatch(/^NAME STATUS AGE\ndefault Active \d+[smh]\n$/);
    });

    it('get all lists widgets through the category', { timeout: T }, async () => {
      await k('create', '-n', 'kube-public', '-f', await manifest(widgetYAML('in-all', 2)));
      const out = squash(await k('get', 'all', '-n', 'kube-public'));
      // `all` names several kinds (Services and widgets), so kubectl prefixes each row with its kind, as on a cluster.
      expect(out).toMatch(/^NAME REPLICAS READY AGE\nwidget\.example\.kapi\.dev\/in-all 2 \d+s\n$/);
    });

    it('version -o json', { timeout: T }, async () => {
      const v = JSON.parse(await k('version', '-o', 'json'));
      expect(v.clientVersion.gitVersion).toMatch(/^v1\.\d+\.\d+/);
      expect(v.serverVersion).toEqual(
        expect.objectContaining({ major: expect.any(String), minor: expect.any(String), gitVersion: expect.any(String) }),
      );
    });

    it('an error: get of a missing widget', { timeout: T }, async () => {
      const r = await run(['get', 'widget', 'nope']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('Error from server (NotFound): widgets.example.kapi.dev "nope" not found\n');
    });

    // Last, after every command above: each consistent read cost a backend round trip at most, never a wait for
    // etcd's timed progress notification until the freshness timeout (3 s a read on etcd 3.4 in issue 10).
    it('no consistent read waited out the freshness timeout', () => {
      expect(consistentReadFallbacks(cp.server)).toEqual({});
    });
  });
});
