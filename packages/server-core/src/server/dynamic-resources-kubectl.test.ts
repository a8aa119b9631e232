import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries, writePlainKubeconfig } from '../../../../scripts/kubectl-binaries.ts';
import { Widget } from '../openapi/test-support/widget.ts';
import { post, testServers } from '../test-support/test-servers.ts';

/**
 * The real kubectl against a kind added to (and removed from) a running server: discovery (api-resources, the
 * resource mapping of get) and OpenAPI (explain) follow the change. Every call has a fresh --cache-dir, as kubectl
 * caches discovery and OpenAPI documents.
 */

const execFileAsync = promisify(execFile);
const binaries = kubectlBinaries(['kubectl', 'kubectl.1.27', 'kubectl.1.33']);
const start = testServers();

describe('kubectl and a kind added at run time', () => {
  let tmp: string;
  let run = 0;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'kapi-dynamic-kubectl-'));
  });
  afterAll(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  /** stdout, or the failure's stderr with its exit code. */
  async function kubectl(bin: string, kubeconfig: string, ...args: string[]): Promise<{ code: number; out: string }> {
    const cache = join(tmp, `cache-${run++}`);
    try {
      const { stdout } = await execFileAsync(bin, ['--cache-dir', cache, ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: tmp, KUBECONFIG: kubeconfig },
      });
      return { code: 0, out: stdout.replace(/[ \t]+/g, ' ') };
    } catch (err) {
      const e = err as { code?: number; stderr?: string };
      return { code: e.code ?? -1, out: e.stderr ?? '' };
    }
  }

  for (const bin of binaries) {
    const name = bin.slice(bin.lastIndexOf('/') + 1);
    it(`${name}: api-resources, get and explain see the added kind; get refuses it once removed`, { timeout: 60_000 }, async () => {
      const { url, server } = await start();
      const kubeconfig = join(tmp, `kubeconfig-${name}`);
      await writePlainKubeconfig(kubeconfig, url);
      expect((await kubectl(bin, kubeconfig, 'api-resources')).out).not.toContain('widgets');

      await server.addResource(Widget);
      const body = { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { replicas: 2 } };
      expect((await post(`${url}/apis/example.kapi.dev/v1/namespaces/default/widgets`, body, {})).status).toBe(201);

      const resources = await kubectl(bin, kubeconfig, 'api-resources', '--api-group=example.kapi.dev');
      expect(resources).toEqual({ code: 0, out: expect.stringContaining('widgets wd example.kapi.dev/v1 true Widget') });
      const got = await kubectl(bin, kubeconfig, 'get', 'widgets');
      expect(got.code).toBe(0);
      expect(got.out).toMatch(/^NAME AGE\nw1 \S+\n$/);
      expect((await kubectl(bin, kubeconfig, 'get', 'wd', 'w1', '-o', 'jsonpath={.spec.replicas}')).out).toBe('2');
      const explained = await kubectl(bin, kubeconfig, 'explain', 'widgets.spec');
      expect(explained.code).toBe(0);
      expect(explained.out).toContain('replicas <integer>');
      expect(explained.out).toContain('How many widgets to run.');

      await server.removeResource(Widget);
      const gone = await kubectl(bin, kubeconfig, 'get', 'widgets');
      expect(gone.code).not.toBe(0);
      expect(gone.out).toContain('the server doesn\'t have a resource type "widgets"');
      expect((await kubectl(bin, kubeconfig, 'api-resources')).out).not.toContain('widgets');
    });
  }
});
