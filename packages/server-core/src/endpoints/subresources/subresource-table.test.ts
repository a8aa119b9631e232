import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { KubeObject } from '@kapi/apimachinery';
import { defineResource, type Store } from '@kapi/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { kubectlBinaries, writePlainKubeconfig } from '../../../../../scripts/kubectl-binaries.ts';
import { json, post, testServers } from '../../test-support/test-servers.ts';
import type { SubresourceStorage } from '../subresource-storage.ts';

/**
 * GET of a subresource as a Table, as kube serves it: status with the parent's table convertor (StatusREST), scale
 * with the kind's columns read from the Scale (a custom resource's scale scope shares the kind's convertor), both as
 * PartialObjectMetadata too; a storage of its own kind without a Table answers with its object. Proven with the
 * real kubectl's `get --subresource` (1.27+).
 */

const execFileAsync = promisify(execFile);
const start = testServers();
const GROUP = 'example.kapi.dev';
const GIZMOS = `/apis/${GROUP}/v1/namespaces/default/gizmos`;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/** A kind with printer columns whose paths a Scale has too (.spec.replicas, .status.replicas). */
const Gizmo = defineResource({
  group: GROUP,
  kind: 'Gizmo',
  plural: 'gizmos',
  namespaced: true,
  versions: [
    {
      name: 'v1',
      schema: z.object({
        spec: z.object({ replicas: z.int32().min(0) }),
        status: z.object({ replicas: z.int32().optional(), phase: z.string().optional() }).optional(),
      }),
    },
  ],
  printerColumns: [
    { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Current', type: 'integer', jsonPath: '.status.replicas' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
  ],
  subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
});

/** A read-only subresource of its own kind, with no Table. */
const summary = (store: Store): SubresourceStorage => ({
  kind: { group: GROUP, version: 'v1', kind: 'GizmoSummary' },
  async get({ context, info }) {
    const g = (await store.get(context, info.name)) as KubeObject & { spec: { replicas: number } };
    return { apiVersion: `${GROUP}/v1`, kind: 'GizmoSummary', metadata: { name: info.name }, replicas: g.spec.replicas };
  },
});

async function startWithGizmo() {
  const started = await start();
  await started.server.addResource(Gizmo, { subresources: new Map([['summary', summary]]) });
  const body = { apiVersion: `${GROUP}/v1`, kind: 'Gizmo', metadata: { name: 'g' }, spec: { replicas: 3 } };
  expect((await post(`${started.url}${GIZMOS}`, body, {})).status).toBe(201);
  const status = await fetch(`${started.url}${GIZMOS}/g/status`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify({ status: { replicas: 1, phase: 'Growing' } }),
  });
  expect(status.status).toBe(200);
  return started;
}

describe('subresource GET as a Table', () => {
  it('status: the parent’s Table and PartialObjectMetadata; scale: the kind’s columns read from the Scale', async () => {
    const { url } = await startWithGizmo();
    const status = await json(await fetch(`${url}${GIZMOS}/g/status`, { headers: { accept: TABLE } }));
    expect(status).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      columnDefinitions: [{ name: 'Name' }, { name: 'Desired' }, { name: 'Current' }, { name: 'Phase' }],
      rows: [{ cells: ['g', 3, 1, 'Growing'], object: { kind: 'PartialObjectMetadata', metadata: { name: 'g' } } }],
    });
    const scale = await json(await fetch(`${url}${GIZMOS}/g/scale?includeObject=Object`, { headers: { accept: TABLE } }));
    expect(scale).toMatchObject({
      kind: 'Table',
      columnDefinitions: [{ name: 'Name' }, { name: 'Desired' }, { name: 'Current' }, { name: 'Phase' }],
      rows: [{ cells: ['g', 3, 1, null], object: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 3 } } }],
    });
    const partial = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';
    expect(await json(await fetch(`${url}${GIZMOS}/g/scale`, { headers: { accept: partial } }))).toMatchObject({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: { name: 'g', namespace: 'default' },
    });
    expect(await json(await fetch(`${url}${GIZMOS}/g/status`, { headers: { accept: partial } }))).toMatchObject({
      kind: 'PartialObjectMetadata',
      metadata: { name: 'g' },
    });
    // A storage of its own kind without a Table: the object, as kube answers one without a table convertor.
    const own = await fetch(`${url}${GIZMOS}/g/summary`, { headers: { accept: TABLE } });
    expect(own.status).toBe(200);
    expect(await json(own)).toEqual({ apiVersion: `${GROUP}/v1`, kind: 'GizmoSummary', metadata: { name: 'g' }, replicas: 3 });
    expect((await fetch(`${url}${GIZMOS}/g/summary`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })).status).toBe(
      406,
    );
  });
});

describe('kubectl get --subresource', () => {
  const binaries = kubectlBinaries(['kubectl', 'kubectl.1.27', 'kubectl.1.33']);
  let tmp: string;
  let run = 0;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'kapi-subresource-kubectl-'));
  });
  afterAll(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

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
    it(`${name}: prints the status and the scale of a gizmo with the kind’s columns`, { timeout: 60_000 }, async () => {
      const { url } = await startWithGizmo();
      const kubeconfig = join(tmp, `kubeconfig-${name}`);
      await writePlainKubeconfig(kubeconfig, url);
      expect(await kubectl(bin, kubeconfig, 'get', 'gizmos', 'g', '--subresource=status')).toEqual({
        code: 0,
        out: 'NAME DESIRED CURRENT PHASE\ng 3 1 Growing\n',
      });
      expect(await kubectl(bin, kubeconfig, 'get', 'gizmos', 'g', '--subresource=scale')).toEqual({
        code: 0,
        out: 'NAME DESIRED CURRENT PHASE\ng 3 1 \n',
      });
      const scaled = await kubectl(bin, kubeconfig, 'get', 'gizmos', 'g', '--subresource=scale', '-o', 'jsonpath={.kind} {.spec.replicas}');
      expect(scaled).toEqual({ code: 0, out: 'Scale 3' });
    });
  }
});
