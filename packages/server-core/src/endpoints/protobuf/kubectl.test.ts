import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries, writePlainKubeconfig } from '../../../../../scripts/kubectl-binaries.ts';
import { decodeKubernetesProtobuf, KUBERNETES_PROTOBUF } from './codec.ts';

/**
 * The real bytes kubectl's typed-client subcommands send: `kubectl create configmap|secret generic|namespace` POST
 * `application/vnd.kubernetes.protobuf`. A bare node:http server records each POST and answers 201 with a JSON echo
 * (their Accept lists JSON after protobuf); these subcommands do no discovery.
 */

const execFileAsync = promisify(execFile);

const binaries = kubectlBinaries(['kubectl.1.32', 'kubectl.1.33']);

interface Posted {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

describe('kubectl create sends protobuf the decoder reads', () => {
  const posted: Posted[] = [];
  let server: Server;
  let tmp: string;
  let kubeconfig: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const path = (req.url ?? '').split('?')[0] ?? '';
        if (req.method !== 'POST') {
          res.writeHead(404, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound' }));
          return;
        }
        posted.push({ path, headers: req.headers, body });
        let echo: unknown;
        try {
          echo = decodeKubernetesProtobuf(body);
        } catch {
          echo = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'undecodable' } };
        }
        res.writeHead(201, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(echo));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    tmp = await mkdtemp(join(tmpdir(), 'kapi-protobuf-kubectl-'));
    kubeconfig = join(tmp, 'kubeconfig');
    await writePlainKubeconfig(kubeconfig, `http://127.0.0.1:${port}`);
    await writeFile(join(tmp, 'bin.dat'), Buffer.from([0x00, 0x01, 0xfe, 0xff]));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(tmp, { recursive: true, force: true });
  });

  /** Runs kubectl and returns what it POSTed. */
  async function capture(kubectl: string, args: string[]): Promise<Posted> {
    posted.length = 0;
    await execFileAsync(kubectl, ['--kubeconfig', kubeconfig, ...args], { env: { ...process.env, HOME: tmp, KUBECONFIG: kubeconfig } });
    expect(posted).toHaveLength(1);
    const p = posted[0] as Posted;
    expect(p.headers['content-type']).toBe(KUBERNETES_PROTOBUF);
    expect(p.headers.accept).toContain('application/json');
    return p;
  }

  describe.each(binaries.map((b) => [basename(b), b]))('%s', (_name, kubectl) => {
    it('create configmap --from-literal --from-file (binary)', async () => {
      const p = await capture(kubectl, ['create', 'configmap', 'c1', '--from-literal=a=b', `--from-file=${join(tmp, 'bin.dat')}`]);
      expect(p.path).toBe('/api/v1/namespaces/default/configmaps');
      expect(decodeKubernetesProtobuf(p.body)).toStrictEqual({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c1' },
        data: { a: 'b' },
        binaryData: { 'bin.dat': 'AAH+/w==' },
      });
    });

    it('create secret generic --from-literal', async () => {
      const p = await capture(kubectl, ['create', 'secret', 'generic', 's1', '--from-literal=k=v']);
      expect(p.path).toBe('/api/v1/namespaces/default/secrets');
      expect(decodeKubernetesProtobuf(p.body)).toStrictEqual({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's1' },
        data: { k: 'dg==' },
      });
    });

    it('create secret generic --type, non-ASCII literal', async () => {
      const p = await capture(kubectl, ['create', 'secret', 'generic', 's2', '--type=example.com/t', '--from-literal=x=\u00e9']);
      expect(decodeKubernetesProtobuf(p.body)).toStrictEqual({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's2' },
        type: 'example.com/t',
        data: { x: Buffer.from('\u00e9').toString('base64') },
      });
    });

    it('create namespace', async () => {
      const p = await capture(kubectl, ['create', 'namespace', 'n1']);
      expect(p.path).toBe('/api/v1/namespaces');
      expect(decodeKubernetesProtobuf(p.body)).toStrictEqual({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'n1' },
        spec: {},
        status: {},
      });
    });
  });
});
