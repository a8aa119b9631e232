import { type AdmissionAttributes, AdmissionChain, type MutatingAdmission, type ValidatingAdmission } from '@kapi/admission';
import { newForbidden } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { Widget } from '../../openapi/test-support/widget.ts';
import { json, post, testServers } from '../../test-support/test-servers.ts';

/**
 * Scale and finalize writes are admitted as kube admits them: a scale write as an update of an autoscaling/v1 Scale
 * (the parent's resource, subresource scale), mutating admission on the Scale asked for and validating admission on
 * the Scale that results, around the parent's own update (its write checks and validation); namespaces/finalize as an
 * update of the Namespace with subresource finalize. dryRun admits and writes nothing.
 */

const start = testServers();

/** The attributes' data, copied (their hooks, annotate/warn/versions.convert, are functions structuredClone refuses). */
function snapshot(attrs: AdmissionAttributes): AdmissionAttributes {
  const { annotate: _a, warn: _w, versions: _v, reinvocation: _r, ...data } = attrs;
  return structuredClone(data);
}

const GROUP = 'example.kapi.dev';
const WIDGETS = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const SCALE = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

/** A real chain plugin: records what it sees, caps replicas at 10 when mutating, refuses 7 replicas when validating. */
function scalePolicy(): { chain: AdmissionChain; seen: { phase: string; attrs: AdmissionAttributes }[] } {
  const seen: { phase: string; attrs: AdmissionAttributes }[] = [];
  const replicasOf = (o: unknown): number | undefined => (o as { spec?: { replicas?: number } } | null)?.spec?.replicas;
  const plugin: MutatingAdmission & ValidatingAdmission = {
    name: 'ScalePolicy',
    handles: (op) => op === 'UPDATE',
    async admit(attrs) {
      seen.push({ phase: 'admit', attrs: snapshot(attrs) });
      const obj = attrs.object as unknown as { kind?: string; spec: { replicas: number } };
      if (obj.kind === 'Scale' && obj.spec.replicas > 10) obj.spec.replicas = 10;
    },
    async validate(attrs) {
      seen.push({ phase: 'validate', attrs: snapshot(attrs) });
      if (attrs.subresource !== '' && replicasOf(attrs.object) === 7)
        throw newForbidden({ group: GROUP, resource: 'widgets' }, attrs.name, 'seven replicas are not allowed');
      if (attrs.subresource === 'finalize') throw newForbidden({ group: '', resource: 'namespaces' }, attrs.name, 'finalize refused');
    },
  };
  return { chain: new AdmissionChain([plugin]), seen };
}

function send(url: string, method: string, body: unknown, contentType = 'application/json'): Promise<Response> {
  return fetch(url, { method, headers: { 'content-type': contentType }, body: JSON.stringify(body) });
}

async function replicasOfWidget(url: string, name: string): Promise<number> {
  return (await json(await fetch(`${url}${WIDGETS}/${name}`))).spec.replicas;
}

async function startWithWidget(options: Parameters<typeof start>[0] = {}) {
  const started = await start(options);
  await started.server.addResource(Widget);
  const body = { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 2 } };
  expect((await post(`${started.url}${WIDGETS}`, body, {})).status).toBe(201);
  return started;
}

describe('scale writes through admission', () => {
  it('PUT: mutating admission sees the Scale asked for and the current one, its change is stored; validating sees the result', async () => {
    const { chain, seen } = scalePolicy();
    const { url } = await startWithWidget({ admission: chain });
    seen.length = 0;
    const put = await send(`${url}${WIDGETS}/w/scale`, 'PUT', {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'w' },
      spec: { replicas: 50 },
    });
    expect(put.status).toBe(200);
    expect((await json(put)).spec).toEqual({ replicas: 10 });
    expect(await replicasOfWidget(url, 'w')).toBe(10);

    expect(seen.map((s) => s.phase)).toEqual(['admit', 'validate']);
    const common = {
      operation: 'UPDATE',
      kind: SCALE,
      resource: { group: GROUP, version: 'v1', resource: 'widgets' },
      subresource: 'scale',
      namespace: 'default',
      name: 'w',
      dryRun: false,
    };
    expect(seen[0]?.attrs).toMatchObject({
      ...common,
      object: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w' }, spec: { replicas: 50 } },
      oldObject: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w', namespace: 'default' }, spec: { replicas: 2 } },
    });
    expect(seen[1]?.attrs).toMatchObject({
      ...common,
      object: { kind: 'Scale', spec: { replicas: 10 } },
      oldObject: { kind: 'Scale', spec: { replicas: 2 } },
    });
    // The validating phase's Scale is read from the widget about to be stored: it carries the widget's identity.
    expect(seen[1]?.attrs.object).toMatchObject({ metadata: { uid: expect.any(String), creationTimestamp: expect.any(String) } });
  });

  it('PATCH: the patch applies to the current Scale before admission; a refusal is a 403 with the plugin’s message and stores nothing', async () => {
    const { chain, seen } = scalePolicy();
    const { url } = await startWithWidget({ admission: chain });
    seen.length = 0;
    const merge = await send(`${url}${WIDGETS}/w/scale`, 'PATCH', { spec: { replicas: 4 } }, 'application/merge-patch+json');
    expect(merge.status).toBe(200);
    expect(seen[0]?.attrs).toMatchObject({ kind: SCALE, subresource: 'scale', object: { kind: 'Scale', spec: { replicas: 4 } } });
    expect(await replicasOfWidget(url, 'w')).toBe(4);

    const refused = await send(
      `${url}${WIDGETS}/w/scale`,
      'PATCH',
      [{ op: 'replace', path: '/spec/replicas', value: 7 }],
      'application/json-patch+json',
    );
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({
      reason: 'Forbidden',
      message: `widgets.${GROUP} "w" is forbidden: seven replicas are not allowed`,
    });
    expect(await replicasOfWidget(url, 'w')).toBe(4);
    const put = await send(`${url}${WIDGETS}/w/scale`, 'PUT', {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'w' },
      spec: { replicas: 7 },
    });
    expect(put.status).toBe(403);
    expect(await replicasOfWidget(url, 'w')).toBe(4);
  });

  it('dryRun: admitted with dryRun true, answered with the Scale it would store, and nothing is written', async () => {
    const { chain, seen } = scalePolicy();
    const { url } = await startWithWidget({ admission: chain });
    const before = await json(await fetch(`${url}${WIDGETS}/w`));
    seen.length = 0;
    const put = await send(`${url}${WIDGETS}/w/scale?dryRun=All`, 'PUT', {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'w' },
      spec: { replicas: 30 },
    });
    expect(put.status).toBe(200);
    expect((await json(put)).spec).toEqual({ replicas: 10 });
    const patch = await send(`${url}${WIDGETS}/w/scale?dryRun=All`, 'PATCH', { spec: { replicas: 3 } }, 'application/merge-patch+json');
    expect(patch.status).toBe(200);
    expect((await json(patch)).spec).toEqual({ replicas: 3 });
    expect(seen.map((s) => [s.phase, s.attrs.dryRun])).toEqual([
      ['admit', true],
      ['validate', true],
      ['admit', true],
      ['validate', true],
    ]);
    expect(await json(await fetch(`${url}${WIDGETS}/w`))).toEqual(before);
  });

  it('runs the kind’s write checks on the widget the Scale changed (the Widget’s attributes), before its validation', async () => {
    const checked: AdmissionAttributes[] = [];
    const { url, server } = await start();
    await server.addResource(Widget, {
      writeChecks: [
        {
          resource: `widgets.${GROUP}`,
          async check(attrs) {
            checked.push(snapshot(attrs));
            if ((attrs.object as unknown as { spec: { replicas: number } }).spec.replicas > 100)
              throw newForbidden({ group: GROUP, resource: 'widgets' }, attrs.name, 'too many widgets');
          },
        },
      ],
    });
    await post(`${url}${WIDGETS}`, { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 2 } }, {});
    checked.length = 0;
    const ok = await send(`${url}${WIDGETS}/w/scale`, 'PATCH', { spec: { replicas: 5 } }, 'application/merge-patch+json');
    expect(ok.status).toBe(200);
    expect(checked).toHaveLength(1);
    expect(checked[0]).toMatchObject({
      operation: 'UPDATE',
      kind: { group: GROUP, version: 'v1', kind: 'Widget' },
      subresource: 'scale',
      name: 'w',
      object: { kind: 'Widget', spec: { replicas: 5 } },
      oldObject: { kind: 'Widget', spec: { replicas: 2 } },
    });
    const refused = await send(`${url}${WIDGETS}/w/scale?dryRun=All`, 'PATCH', { spec: { replicas: 101 } }, 'application/merge-patch+json');
    expect(refused.status).toBe(403);
    expect((await json(refused)).message).toBe(`widgets.${GROUP} "w" is forbidden: too many widgets`);
    // Beyond int32 the Scale itself is refused (400) before anything else.
    expect((await send(`${url}${WIDGETS}/w/scale`, 'PATCH', { spec: { replicas: 2 ** 31 } }, 'application/merge-patch+json')).status).toBe(
      400,
    );
    expect(await replicasOfWidget(url, 'w')).toBe(5);
  });
});

describe('namespaces/finalize through admission', () => {
  it('is admitted as an update of the Namespace with subresource finalize; a refusal is a 403 and nothing changes', async () => {
    const { chain, seen } = scalePolicy();
    const { url } = await start({ admission: chain });
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fin' }, spec: { finalizers: ['kubernetes'] } };
    expect((await post(`${url}/api/v1/namespaces`, ns, {})).status).toBe(201);
    seen.length = 0;
    const put = await send(`${url}/api/v1/namespaces/fin/finalize`, 'PUT', { ...ns, spec: { finalizers: [] } });
    expect(put.status).toBe(403);
    expect((await json(put)).message).toBe('namespaces "fin" is forbidden: finalize refused');
    expect(seen.map((s) => s.phase)).toEqual(['admit', 'validate']);
    expect(seen[0]?.attrs).toMatchObject({
      operation: 'UPDATE',
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      resource: { group: '', version: 'v1', resource: 'namespaces' },
      subresource: 'finalize',
      name: 'fin',
      object: { kind: 'Namespace', spec: { finalizers: [] } },
      oldObject: { kind: 'Namespace', spec: { finalizers: ['kubernetes'] } },
    });
    expect((await json(await fetch(`${url}/api/v1/namespaces/fin`))).spec).toEqual({ finalizers: ['kubernetes'] });
  });
});
