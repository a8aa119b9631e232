import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The bin runs from source, as the monorepo runs everything (dist/bin/kapi-test-server.js is the same file compiled).
const BIN = fileURLToPath(new URL('./kapi-test-server.ts', import.meta.url));
// Debian's python3-kubernetes installs into the system interpreter's dist-packages, not into another python3 on PATH.
const PYTHON = process.env.KAPI_PYTHON ?? '/usr/bin/python3';

interface Bin {
  child: ChildProcess;
  /** The ready line's url and kubeconfig path. */
  ready: Promise<{ url: string; kubeconfig: string }>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
// The tests run concurrently (most of each is the child's start), so leftovers are cleaned up once, at the end.
afterAll(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kapi-test-server-'));
  dirs.push(d);
  return d;
}

function startBin(args: string[], cwd: string, stdin: 'ignore' | 'pipe' = 'ignore'): Bin {
  const child = spawn(process.execPath, ['--conditions=@kapi/source', BIN, ...args], { cwd, stdio: [stdin, 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<{ url: string; kubeconfig: string }>((resolve, reject) => {
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /^kapi-test-server ready: (\S+) kubeconfig=(.+)$/m.exec(out);
      if (m) resolve({ url: m[1] as string, kubeconfig: m[2] as string });
    });
    exited.then(({ code, signal }) => reject(new Error(`kapi-test-server exited (${code ?? signal}) before it was ready:\n${out}${err}`)));
  });
  ready.catch(() => undefined);
  child.stderr?.on('data', (b: Buffer) => {
    err += b.toString();
  });
  return { child, ready, exited, output: () => out + err };
}

const CRDS_YAML = `# two CRDs in one file
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { plural: gadgets, singular: gadget, kind: Gadget }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { size: { type: integer } } }
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sprockets.example.com
spec:
  group: example.com
  scope: Cluster
  names: { plural: sprockets, singular: sprocket, kind: Sprocket }
  versions:
    - name: v1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
`;

// Loads the kubeconfig, creates and lists ConfigMaps and Gadgets, then watches ConfigMaps from the list's
// resourceVersion until it sees a MODIFIED (the test makes the changes once it reads WATCHING); then server-side
// apply through the dynamic client: a create, another manager's conflict in kube's words, the same forced.
const PYTHON_SCRIPT = `
import datetime, json, sys
from kubernetes import client, config, watch

config.load_kube_config(config_file=sys.argv[1])
v1 = client.CoreV1Api()
v1.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='from-python'), data={'lang': 'python'}))
cms = v1.list_namespaced_config_map('default')
print('LIST', ' '.join(sorted(c.metadata.name for c in cms.items)), flush=True)

co = client.CustomObjectsApi()
co.create_namespaced_custom_object('example.com', 'v1', 'default', 'gadgets',
    {'apiVersion': 'example.com/v1', 'kind': 'Gadget', 'metadata': {'name': 'g1'}, 'spec': {'size': 3}})
gadgets = co.list_namespaced_custom_object('example.com', 'v1', 'default', 'gadgets')
print('GADGETS', ' '.join('%s:%s' % (g['metadata']['name'], g['spec']['size']) for g in gadgets['items']), flush=True)
sprockets = co.list_cluster_custom_object('example.com', 'v1', 'sprockets')
print('SPROCKETS', len(sprockets['items']), flush=True)

w = watch.Watch()
print('WATCHING', flush=True)
for ev in w.stream(v1.list_namespaced_config_map, 'default', resource_version=cms.metadata.resource_version, timeout_seconds=30):
    o = ev['object']
    print('EVENT', ev['type'], o.metadata.name, json.dumps(o.data, sort_keys=True), flush=True)
    if ev['type'] == 'MODIFIED':
        w.stop()
        last = o.metadata.resource_version
        created = o.metadata.creation_timestamp

# The server counts in real time: a watch's timeoutSeconds ends it, timestamps are now.
quiet = list(watch.Watch().stream(v1.list_namespaced_config_map, 'default', resource_version=last, timeout_seconds=1))
print('TIMED OUT', len(quiet), flush=True)
print('FRESH', abs((datetime.datetime.now(datetime.timezone.utc) - created).total_seconds()) < 120, flush=True)

from kubernetes import dynamic
from kubernetes.client.rest import ApiException
configmaps = dynamic.DynamicClient(client.ApiClient()).resources.get(api_version='v1', kind='ConfigMap')
def apply(data, manager, force=False):
    body = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'applied', 'namespace': 'default'}, 'data': data}
    # This client's REST layer sends a YAML content type only for a body given as text (JSON is YAML).
    return configmaps.server_side_apply(body=json.dumps(body), name='applied', namespace='default', field_manager=manager, force_conflicts=force)
def managers(o):
    return ' '.join(sorted('%s/%s' % (m.manager, m.operation) for m in o.metadata.managedFields))
o = apply({'a': '1', 'b': '2'}, 'py-applier')
print('APPLIED', o.data.a, o.data.b, managers(o), flush=True)
try:
    apply({'a': 'other'}, 'py-other')
except ApiException as e:
    print('CONFLICT', e.status, json.loads(e.body)['message'], flush=True)
o = apply({'a': 'other'}, 'py-other', force=True)
print('FORCED', o.data.a, o.data.b, managers(o), flush=True)
`;

/** Runs the Python script against the kubeconfig; `onLine` sees each line it prints as it prints it. */
function runPython(
  script: string,
  args: string[],
  onLine: (line: string) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dir = tempDir();
  const file = join(dir, 'client.py');
  writeFileSync(file, script);
  const child = spawn(PYTHON, [file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  let pending = '';
  child.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
    pending += b.toString();
    for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
      onLine(pending.slice(0, i));
      pending = pending.slice(i + 1);
    }
  });
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** A missing client fails the test that needs it: CI installs it (.ci/run), and a skipped test would prove nothing. */
function requirePythonClient(): void {
  const r = spawnSync(PYTHON, ['-c', 'import kubernetes'], { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error(
      `${PYTHON} cannot import kubernetes: install the Debian package python3-kubernetes (.ci/run does)\n${r.stderr ?? r.error}`,
    );
  }
}

async function send(url: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<number> {
  const res = await fetch(`${url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'Content-Type': contentType }, body: JSON.stringify(body) }),
  });
  await res.arrayBuffer();
  return res.status;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

describe.concurrent('kapi-test-server', () => {
  it('serves the Python client: create, list, watch ConfigMaps (real time: watch timeouts, timestamps); CRDs of --crds through CustomObjectsApi; server-side apply with its conflict and force; SIGTERM exits 0', {
    timeout: 60_000,
  }, async () => {
    requirePythonClient();
    const dir = tempDir();
    mkdirSync(join(dir, 'crds'));
    writeFileSync(join(dir, 'crds', 'example.yaml'), CRDS_YAML);
    writeFileSync(join(dir, 'crds', 'README.md'), 'not a manifest');
    const kubeconfig = join(dir, 'out', 'kube.config');
    mkdirSync(join(dir, 'out'));
    const bin = startBin(['--crds', 'crds', '--kubeconfig', 'out/kube.config'], dir);
    const { url, kubeconfig: printed } = await bin.ready;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(printed).toBe(kubeconfig);
    expect(JSON.parse(readFileSync(kubeconfig, 'utf8')).clusters[0].cluster.server).toBe(url);

    const changes: Promise<number>[] = [];
    const python = await runPython(PYTHON_SCRIPT, [kubeconfig], (line) => {
      if (line !== 'WATCHING') return;
      changes.push(
        (async () => {
          const added = await send(url, 'POST', '/api/v1/namespaces/default/configmaps', {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'from-test' },
            data: { lang: 'typescript' },
          });
          const patched = await send(
            url,
            'PATCH',
            '/api/v1/namespaces/default/configmaps/from-python',
            { data: { lang: 'python', seen: 'yes' } },
            'application/merge-patch+json',
          );
          return added * 1000 + patched;
        })(),
      );
    });
    expect(python.stderr).toBe('');
    expect(python.code).toBe(0);
    expect(await Promise.all(changes)).toEqual([201_200]);
    expect(python.stdout.split('\n')).toEqual([
      'LIST from-python',
      'GADGETS g1:3',
      'SPROCKETS 0',
      'WATCHING',
      'EVENT ADDED from-test {"lang": "typescript"}',
      'EVENT MODIFIED from-python {"lang": "python", "seen": "yes"}',
      'TIMED OUT 0',
      'FRESH True',
      'APPLIED 1 2 py-applier/Apply',
      'CONFLICT 409 Apply failed with 1 conflict: conflict with "py-applier": .data.a',
      'FORCED other 2 py-applier/Apply py-other/Apply',
      '',
    ]);

    bin.child.kill('SIGTERM');
    expect(await bin.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(kubeconfig)).toBe(false);
  });

  it('--port and --tls: HTTPS on that port, the kubeconfig carries the CA; --exit-on-stdin-close stops it when stdin ends', {
    timeout: 60_000,
  }, async () => {
    const dir = tempDir();
    const port = await freePort();
    const bin = startBin(['--port', String(port), '--tls', '--exit-on-stdin-close'], dir, 'pipe');
    const { url, kubeconfig } = await bin.ready;
    expect(url).toBe(`https://127.0.0.1:${port}`);
    expect(kubeconfig).toBe(join(dir, 'kapi-test.kubeconfig'));
    const cluster = JSON.parse(readFileSync(kubeconfig, 'utf8')).clusters[0].cluster;
    expect(cluster.server).toBe(url);
    const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString();
    const status = await new Promise<number | undefined>((resolve, reject) => {
      request(`${url}/api/v1/namespaces/kube-system`, { ca }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(200);

    bin.child.stdin?.end();
    expect(await bin.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(kubeconfig)).toBe(false);
  });

  it('SIGINT exits 0; without --exit-on-stdin-close stdin ending does not stop it', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const bin = startBin([], dir, 'pipe');
    const { url } = await bin.ready;
    bin.child.stdin?.end();
    // Still serving after stdin ended (a request round trip gives the process time to have reacted).
    expect(await send(url, 'GET', '/api/v1/namespaces/default')).toBe(200);
    expect(bin.child.exitCode).toBe(null);
    bin.child.kill('SIGINT');
    expect(await bin.exited).toEqual({ code: 0, signal: null });
  });

  it('exits 1 with the reason, writing no kubeconfig, when a CRD is invalid; exits 2 on a bad flag', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.yaml'), CRDS_YAML.replace('scope: Cluster', 'scope: Sideways'));
    const bad = startBin(['--crds', 'bad.yaml'], dir);
    expect(await bad.exited).toEqual({ code: 1, signal: null });
    expect(bad.output()).toMatch(/^kapi-test-server: .*scope/m);
    expect(existsSync(join(dir, 'kapi-test.kubeconfig'))).toBe(false);

    const usage = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(process.execPath, ['--conditions=@kapi/source', BIN, '--port', 'eighty'], { cwd: dir }, (err, _out, stderr) =>
        resolve({ code: err ? (err.code as number) : 0, stderr }),
      ),
    );
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^kapi-test-server: --port must be 0\.\.65535, not "eighty"\n\nUsage: kapi-test-server/);
  });
});
