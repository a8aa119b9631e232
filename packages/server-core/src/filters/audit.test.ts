import { newNotFound } from '@kapi/apimachinery';
import { AlwaysDenyAuthorizer } from '@kapi/authz';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditBackend } from '../audit/backend.ts';
import { auditIDOf, recordAuditObjects } from '../audit/context.ts';
import { policyAtLevel } from '../audit/policy.ts';
import type { AuditEvent, AuditLevel } from '../audit/types.ts';
import { RequestInfoResolver } from '../request-info.ts';
import { formatMicroTime, withAudit } from './audit.ts';
import { withAuthorization } from './authorization.ts';
import { compose } from './compose.ts';
import type { Filter, Handler } from './context.ts';
import { withImpersonation } from './impersonation.ts';
import { withPanicRecovery } from './panic-recovery.ts';
import { type Listening, listen } from './serve.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

class MemoryBackend implements AuditBackend {
  events: AuditEvent[] = [];
  processEvents(events: readonly AuditEvent[]): void {
    this.events.push(...events);
  }
  async shutdown(): Promise<void> {}
}

const resolver = new RequestInfoResolver();
const requestInfo: Filter = async (ctx, next) => {
  ctx.requestInfo = resolver.resolve(ctx.req.method ?? 'GET', ctx.req.url ?? '/');
  ctx.longRunning = ctx.requestInfo.verb === 'watch';
  await next();
};
const asAlice: Filter = async (ctx, next) => {
  ctx.user = { name: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'] };
  await next();
};
// 2026-01-01T00:00:00.000000Z, then +1.5 ms per reading.
let t = Date.UTC(2026, 0, 1);
const clock = {
  now: () => {
    const now = t;
    t += 1.5;
    return now;
  },
};

async function serve(level: AuditLevel, handler: Handler, more: Filter[] = []): Promise<MemoryBackend> {
  const backend = new MemoryBackend();
  t = Date.UTC(2026, 0, 1);
  srv = await listen(
    compose([withPanicRecovery(), requestInfo, asAlice, ...more, withAudit({ backend, policy: policyAtLevel(level), clock })], handler),
  );
  return backend;
}

describe('withAudit', () => {
  it('records RequestReceived and ResponseComplete as audit.k8s.io/v1 Events, echoing the Audit-ID', async () => {
    const backend = await serve('Metadata', async (ctx) => {
      ctx.res.statusCode = 201;
      ctx.res.end('{}');
    });
    const r = await fetch(`${srv?.url}/api/v1/namespaces/default/configmaps?x=1`, {
      method: 'POST',
      headers: { 'Audit-ID': 'abc-123', 'User-Agent': 'kubectl/v1.31', 'X-Forwarded-For': '10.0.0.1, bogus, 10.0.0.2' },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('audit-id')).toBe('abc-123');
    const common = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: 'abc-123',
      requestURI: '/api/v1/namespaces/default/configmaps?x=1',
      verb: 'create',
      user: { username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'] },
      sourceIPs: ['10.0.0.1', '10.0.0.2', '127.0.0.1'],
      userAgent: 'kubectl/v1.31',
      objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' },
      requestReceivedTimestamp: '2026-01-01T00:00:00.000000Z',
    };
    expect(backend.events).toEqual([
      { ...common, stage: 'RequestReceived', stageTimestamp: '2026-01-01T00:00:00.000000Z' },
      { ...common, stage: 'ResponseComplete', responseStatus: { metadata: {}, code: 201 }, stageTimestamp: '2026-01-01T00:00:00.001500Z' },
    ]);
    // Field order as kube's JSON.
    expect(Object.keys(backend.events[1] as object)).toEqual([
      'kind',
      'apiVersion',
      'level',
      'auditID',
      'stage',
      'requestURI',
      'verb',
      'user',
      'sourceIPs',
      'userAgent',
      'objectRef',
      'responseStatus',
      'requestReceivedTimestamp',
      'stageTimestamp',
    ]);
  });

  it('level None: no events, but an Audit-Id header (a fresh UUID) all the same', async () => {
    let id: string | undefined;
    const backend = await serve('None', async (ctx) => {
      id = auditIDOf(ctx);
      ctx.res.end();
    });
    const r = await fetch(`${srv?.url}/healthz`);
    expect(r.headers.get('audit-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(id).toBe(r.headers.get('audit-id'));
    expect(backend.events).toEqual([]);
  });

  it('long-running requests also get ResponseStarted when the response starts', async () => {
    let startedSeen = 0;
    const backend = await serve('Metadata', async (ctx) => {
      ctx.res.writeHead(200, { 'Content-Type': 'application/json' });
      startedSeen = backend.events.length;
      ctx.res.end();
    });
    await (await fetch(`${srv?.url}/api/v1/pods?watch=true`)).text();
    expect(startedSeen).toBe(2);
    expect(backend.events.map((e) => [e.stage, e.verb, e.responseStatus?.code])).toEqual([
      ['RequestReceived', 'watch', undefined],
      ['ResponseStarted', 'watch', 200],
      ['ResponseComplete', 'watch', 200],
    ]);
  });

  it('nothing written: kube’s faked "Connection closed early" status', async () => {
    const backend = await serve('Metadata', async () => {});
    await fetch(`${srv?.url}/api/v1/pods?watch=1`);
    expect(backend.events.map((e) => [e.stage, e.responseStatus])).toEqual([
      ['RequestReceived', undefined],
      ['ResponseStarted', { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 }],
      ['ResponseComplete', { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 }],
    ]);
  });

  it('a thrown StatusError is the response; anything else thrown is a Panic', async () => {
    let backend = await serve('Metadata', async () => {
      throw newNotFound('configmaps', 'x');
    });
    let r = await fetch(`${srv?.url}/api/v1/namespaces/default/configmaps/x`);
    expect(r.status).toBe(404);
    expect(r.headers.get('audit-id')).toBeTruthy();
    expect(backend.events.at(-1)).toMatchObject({
      stage: 'ResponseComplete',
      responseStatus: {
        metadata: {},
        status: 'Failure',
        message: 'configmaps "x" not found',
        reason: 'NotFound',
        details: { name: 'x', kind: 'configmaps' },
        code: 404,
      },
    });
    await srv?.close();

    backend = await serve('Metadata', async () => {
      throw new TypeError('boom');
    });
    r = await fetch(`${srv?.url}/api/v1/pods`);
    expect(r.status).toBe(500);
    expect(backend.events.map((e) => e.stage)).toEqual(['RequestReceived', 'Panic']);
    expect(backend.events[1]?.responseStatus).toEqual({
      metadata: {},
      status: 'Failure',
      message: "APIServer panic'd: boom",
      reason: 'InternalError',
      code: 500,
    });
  });

  it('recordAuditObjects keeps the request object from Request and the response object at RequestResponse', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    const handler: Handler = async (ctx) => {
      recordAuditObjects(ctx, { requestObject: body, responseObject: { ...body, metadata: { name: 'c', uid: '1' } } });
      ctx.res.end();
    };
    for (const [level, req, res] of [
      ['Metadata', false, false],
      ['Request', true, false],
      ['RequestResponse', true, true],
    ] as const) {
      const backend = await serve(level, handler);
      await fetch(`${srv?.url}/api/v1/namespaces/default/configmaps`, { method: 'POST' });
      const done = backend.events.at(-1) as AuditEvent;
      expect(['requestObject' in done, 'responseObject' in done]).toEqual([req, res]);
      if (res) expect(done.responseObject).toEqual({ ...body, metadata: { name: 'c', uid: '1' } });
      await srv?.close();
      srv = undefined;
    }
  });

  it('authorization below it adds kube’s annotations and the Forbidden Status', async () => {
    const backend = new MemoryBackend();
    srv = await listen(
      compose(
        [
          requestInfo,
          asAlice,
          withAudit({ backend, policy: policyAtLevel('Metadata'), clock }),
          withAuthorization({ authorizer: new AlwaysDenyAuthorizer() }),
        ],
        async (ctx) => {
          ctx.res.end();
        },
      ),
    );
    const r = await fetch(`${srv.url}/api/v1/namespaces/default/secrets/s`);
    expect(r.status).toBe(403);
    const message =
      'secrets "s" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "default": Everything is forbidden.';
    expect(backend.events.at(-1)).toMatchObject({
      stage: 'ResponseComplete',
      responseStatus: { metadata: {}, status: 'Failure', message, reason: 'Forbidden', details: { name: 's', kind: 'secrets' }, code: 403 },
      annotations: { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': 'Everything is forbidden.' },
    });
  });

  it('records the requestor as user and the impersonated user, whichever filter runs first', async () => {
    const allow = { authorize: async () => ({ decision: 'Allow' as const, reason: '' }) };
    for (const order of ['impersonation first', 'audit first']) {
      const backend = new MemoryBackend();
      const audit = withAudit({ backend, policy: policyAtLevel('Metadata'), clock });
      const imp = withImpersonation({ authorizer: allow });
      srv = await listen(
        compose([requestInfo, asAlice, ...(order === 'audit first' ? [audit, imp] : [imp, audit])], async (ctx) => {
          ctx.res.end();
        }),
      );
      await fetch(`${srv.url}/api/v1/pods`, { headers: { 'Impersonate-User': 'bob' } });
      expect(backend.events.at(-1)).toMatchObject({
        user: { username: 'alice' },
        impersonatedUser: { username: 'bob', groups: ['system:authenticated'] },
      });
      await srv.close();
      srv = undefined;
    }
  });

  it('a backend that cannot store RequestReceived fails the request; later failures go to onError', async () => {
    const errors: unknown[] = [];
    const failing: AuditBackend = {
      processEvents: () => {
        throw new Error('disk full');
      },
      shutdown: async () => {},
    };
    srv = await listen(
      compose(
        [requestInfo, withAudit({ backend: failing, policy: policyAtLevel('Metadata'), onError: (e) => errors.push(e) })],
        async (ctx) => {
          ctx.res.end();
        },
      ),
    );
    const r = await fetch(`${srv.url}/api/v1/pods`);
    expect(r.status).toBe(500);
    expect(await r.json()).toMatchObject({ message: 'Internal error occurred: failed to store audit event' });

    let calls = 0;
    const flaky: AuditBackend = {
      processEvents: () => {
        if (calls++ > 0) throw new Error('later');
      },
      shutdown: async () => {},
    };
    await srv.close();
    srv = await listen(
      compose(
        [requestInfo, withAudit({ backend: flaky, policy: policyAtLevel('Metadata'), onError: (e) => errors.push(e) })],
        async (ctx) => {
          ctx.res.end('ok');
        },
      ),
    );
    expect((await fetch(srv.url)).status).toBe(200);
    expect(errors.map((e) => (e as Error).message)).toEqual(['later']);
  });
});

describe('formatMicroTime', () => {
  it('is RFC 3339 in UTC with six fractional digits', () => {
    expect(formatMicroTime(Date.UTC(2026, 4, 6, 7, 8, 9, 10) + 0.0125)).toBe('2026-05-06T07:08:09.010012Z');
    expect(formatMicroTime(0)).toBe('1970-01-01T00:00:00.000000Z');
  });
});
