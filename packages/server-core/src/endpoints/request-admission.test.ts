import { type AdmissionAttributes, AdmissionChain, admissionPlugin, denyAll } from '@kapi/admission';
import type { KubeObject } from '@kapi/apimachinery';
import { defineResource, Namespace } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AuditBackend } from '../audit/backend.ts';
import { policyAtLevel } from '../audit/policy.ts';
import type { AuditEvent } from '../audit/types.ts';
import { admissionMetrics } from '../metrics/admission-metrics.ts';
import { APIServerMetrics } from '../metrics/apiserver-metrics.ts';
import { json, post, testServers } from '../test-support/test-servers.ts';

/**
 * What admission plugins get from a request through a GenericAPIServer besides the objects: the request's options
 * as kube passes them (CreateOptions, UpdateOptions — also for a PATCH —, DeleteOptions), the kind's served versions
 * with a converter, warnings that reach the client as Warning headers, annotations on the request's audit event;
 * and kube's admission metrics on /metrics.
 */

const start = testServers();

type Spec = Record<string, unknown>;
const rename = (o: KubeObject, from: string, to: string): KubeObject => {
  const { [from]: value, ...rest } = (o.spec ?? {}) as Spec;
  return { ...o, spec: value === undefined ? rest : { ...rest, [to]: value } };
};

/** Served in v1 (storage, spec.replicas) and v1beta1 (spec.size). */
const Gizmo = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gizmo',
  plural: 'gizmos',
  namespaced: true,
  versions: [
    { name: 'v1', storage: true, schema: z.object({ spec: z.object({ replicas: z.int().min(0) }) }) },
    {
      name: 'v1beta1',
      schema: z.object({ spec: z.object({ size: z.int().min(0) }) }),
      toHub: (o) => rename(o, 'size', 'replicas'),
      fromHub: (o) => rename(o, 'replicas', 'size'),
    },
  ],
});

const GIZMOS = '/apis/example.kapi.dev/v1/namespaces/default/gizmos';
const gizmo = (name: string, replicas: number) => ({
  apiVersion: 'example.kapi.dev/v1',
  kind: 'Gizmo',
  metadata: { name },
  spec: { replicas },
});

/** Audit events in memory (a real backend of the AuditBackend interface). */
function memoryAudit(): { backend: AuditBackend; events: AuditEvent[] } {
  const events: AuditEvent[] = [];
  return { events, backend: { processEvents: (evs) => void events.push(...evs), shutdown: async () => {} } };
}

/** A plugin that records what it is given, warns and annotates on every write it sees. */
function observer(): { chain: AdmissionChain; seen: { phase: string; attrs: AdmissionAttributes }[] } {
  const seen: { phase: string; attrs: AdmissionAttributes }[] = [];
  const record = (phase: string) => (attrs: AdmissionAttributes) => {
    seen.push({ phase, attrs });
    attrs.warn?.(`${phase} saw ${attrs.operation} of ${attrs.name}`);
    attrs.annotate?.(`observer.example.kapi.dev/${phase}`, attrs.operation);
  };
  return { seen, chain: new AdmissionChain([admissionPlugin({ name: 'Observer', admit: record('admit'), validate: record('validate') })]) };
}

describe('admission attributes from requests', () => {
  it('CREATE: CreateOptions from the query; warnings become Warning headers; annotations land on the audit event', async () => {
    const { chain, seen } = observer();
    const audit = memoryAudit();
    const { url } = await start({
      resources: [Namespace, Gizmo],
      admission: chain,
      audit: { backend: audit.backend, policy: policyAtLevel('Metadata') },
    });
    const res = await post(`${url}${GIZMOS}?fieldManager=me&fieldValidation=Strict`, gizmo('g1', 2), {});
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toBe('299 - "admit saw CREATE of g1", 299 - "validate saw CREATE of g1"');
    expect(seen.map((s) => s.phase)).toEqual(['admit', 'validate']);
    for (const { attrs } of seen) {
      expect(attrs.operationOptions).toEqual({
        kind: 'CreateOptions',
        apiVersion: 'meta.k8s.io/v1',
        fieldManager: 'me',
        fieldValidation: 'Strict',
      });
    }
    const complete = audit.events.find((e) => e.stage === 'ResponseComplete' && e.verb === 'create');
    expect(complete?.annotations).toMatchObject({
      'observer.example.kapi.dev/admit': 'CREATE',
      'observer.example.kapi.dev/validate': 'CREATE',
    });
  });

  it('UPDATE by PATCH: UpdateOptions (kube converts PatchOptions, without force); dryRun as ["All"]', async () => {
    const { chain, seen } = observer();
    const { url } = await start({ resources: [Namespace, Gizmo], admission: chain });
    expect((await post(`${url}${GIZMOS}`, gizmo('g1', 2), {})).status).toBe(201);
    seen.length = 0;
    const res = await fetch(`${url}${GIZMOS}/g1?dryRun=All&fieldManager=patcher`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { replicas: 3 } }),
    });
    expect(res.status).toBe(200);
    expect(seen[0]?.attrs.operation).toBe('UPDATE');
    expect(seen[0]?.attrs.operationOptions).toEqual({
      kind: 'UpdateOptions',
      apiVersion: 'meta.k8s.io/v1',
      dryRun: ['All'],
      fieldManager: 'patcher',
    });
    expect(seen[0]?.attrs.dryRun).toBe(true);
  });

  it('DELETE: DeleteOptions as decoded from the body', async () => {
    const { chain, seen } = observer();
    const { url } = await start({ resources: [Namespace, Gizmo], admission: chain });
    const created = await json(await post(`${url}${GIZMOS}`, gizmo('g1', 2), {}));
    seen.length = 0;
    const res = await fetch(`${url}${GIZMOS}/g1`, {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        propagationPolicy: 'Foreground',
        gracePeriodSeconds: 0,
        preconditions: { uid: created.metadata.uid },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('warning')).toBe('299 - "admit saw DELETE of g1", 299 - "validate saw DELETE of g1"');
    expect(seen.map((s) => [s.phase, s.attrs.operationOptions])).toEqual([
      [
        'admit',
        {
          kind: 'DeleteOptions',
          apiVersion: 'meta.k8s.io/v1',
          propagationPolicy: 'Foreground',
          gracePeriodSeconds: 0,
          preconditions: { uid: created.metadata.uid },
        },
      ],
      [
        'validate',
        {
          kind: 'DeleteOptions',
          apiVersion: 'meta.k8s.io/v1',
          propagationPolicy: 'Foreground',
          gracePeriodSeconds: 0,
          preconditions: { uid: created.metadata.uid },
        },
      ],
    ]);
  });

  it('versions: the kind’s served versions, and a converter through the storage version', async () => {
    const { chain, seen } = observer();
    const { url } = await start({ resources: [Namespace, Gizmo], admission: chain });
    expect((await post(`${url}${GIZMOS}`, gizmo('g1', 4), {})).status).toBe(201);
    const attrs = seen[0]?.attrs as AdmissionAttributes;
    expect(attrs.versions?.served).toEqual(['v1', 'v1beta1']);
    const beta = await attrs.versions?.convert(attrs.object as KubeObject, 'v1beta1');
    expect(beta).toMatchObject({ apiVersion: 'example.kapi.dev/v1beta1', kind: 'Gizmo', metadata: { name: 'g1' }, spec: { size: 4 } });
    expect(await attrs.versions?.convert(beta as KubeObject, 'v1')).toMatchObject({
      apiVersion: 'example.kapi.dev/v1',
      spec: { replicas: 4 },
    });
    // The object given is left as it was.
    expect(attrs.object).toMatchObject({ apiVersion: 'example.kapi.dev/v1', spec: { replicas: 4 } });
  });
  it('a virtual resource’s create (SelfSubjectReview) gets CreateOptions and warns as well', async () => {
    const { chain, seen } = observer();
    const { url } = await start({ admission: chain });
    const res = await post(
      `${url}/apis/authentication.k8s.io/v1/selfsubjectreviews?dryRun=All`,
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      {},
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toBe('299 - "admit saw CREATE of ", 299 - "validate saw CREATE of "');
    expect(seen[0]?.attrs.operationOptions).toEqual({ kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] });
  });
});

describe('reinvocation through a server', () => {
  it('a plugin that asks for it makes the mutating plugins run again; what the second pass changes is stored', async () => {
    const passes: string[] = [];
    const chain = new AdmissionChain([
      // Doubles whatever it finds on its second pass: it wants to see the object the later plugin produced.
      admissionPlugin({
        name: 'Doubler',
        operations: ['CREATE'],
        admit: (a) => {
          passes.push(`Doubler reinvoke=${a.reinvocation?.isReinvoke()}`);
          const spec = a.object?.spec as { replicas: number };
          if (a.reinvocation?.isReinvoke()) spec.replicas *= 2;
        },
      }),
      admissionPlugin({
        name: 'Minimum',
        operations: ['CREATE'],
        admit: (a) => {
          passes.push(`Minimum reinvoke=${a.reinvocation?.isReinvoke()}`);
          const spec = a.object?.spec as { replicas: number };
          if (spec.replicas < 5) {
            spec.replicas = 5;
            a.reinvocation?.setShouldReinvoke();
          }
        },
      }),
    ]);
    const { url } = await start({ resources: [Namespace, Gizmo], admission: chain });
    const res = await post(`${url}${GIZMOS}`, gizmo('g1', 1), {});
    expect(res.status).toBe(201);
    expect((await json(res)).spec).toEqual({ replicas: 10 });
    expect(passes).toEqual(['Doubler reinvoke=false', 'Minimum reinvoke=false', 'Doubler reinvoke=true', 'Minimum reinvoke=true']);
  });
});

describe('admission metrics on the server’s registry', () => {
  it('step and controller histograms by type, operation and rejected (and name) on /metrics', async () => {
    const metrics = new APIServerMetrics();
    const chain = new AdmissionChain([admissionPlugin({ name: 'Defaults', admit: () => {} }), denyAll('NoDeletes', ['DELETE'])], {
      metrics: admissionMetrics(metrics.registry),
    });
    const { url } = await start({ resources: [Namespace, Gizmo], admission: chain, metrics });
    expect((await post(`${url}${GIZMOS}`, gizmo('g1', 1), {})).status).toBe(201);
    const denied = await fetch(`${url}${GIZMOS}/g1`, { method: 'DELETE' });
    expect(denied.status).toBe(403);
    const text = await (await fetch(`${url}/metrics`)).text();
    const count = (series: string): number => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(count('apiserver_admission_step_admission_duration_seconds_count{type="admit",operation="CREATE",rejected="false"}')).toBe(1);
    expect(count('apiserver_admission_step_admission_duration_seconds_count{type="validate",operation="CREATE",rejected="false"}')).toBe(1);
    expect(count('apiserver_admission_step_admission_duration_seconds_count{type="admit",operation="DELETE",rejected="true"}')).toBe(1);
    expect(
      count('apiserver_admission_step_admission_duration_seconds_summary_count{type="admit",operation="DELETE",rejected="true"}'),
    ).toBe(1);
    expect(
      count(
        'apiserver_admission_controller_admission_duration_seconds_count{name="Defaults",type="admit",operation="CREATE",rejected="false"}',
      ),
    ).toBe(1);
    expect(
      count(
        'apiserver_admission_controller_admission_duration_seconds_count{name="NoDeletes",type="admit",operation="DELETE",rejected="true"}',
      ),
    ).toBe(1);
    expect(text).toContain(
      'apiserver_admission_step_admission_duration_seconds_bucket{le="0.005",type="admit",operation="CREATE",rejected="false"}',
    );
    expect(text).toContain('# TYPE apiserver_admission_webhook_admission_duration_seconds histogram');
  });
});
