import type { IncomingMessage, ServerResponse } from 'node:http';
import { newForbidden } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { createRequestContext } from '../filters/context.ts';
import { addAuditAnnotation, auditEventOf, auditUserInfo, recordAuditObjects, setAuditEvent } from './context.ts';
import type { AuditEvent, AuditLevel } from './types.ts';

function ctxAt(level: AuditLevel) {
  const ctx = createRequestContext({ url: '/', headers: {} } as IncomingMessage, {} as ServerResponse);
  const ev: AuditEvent = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level,
    auditID: 'a',
    stage: 'RequestReceived',
    requestURI: '/',
    verb: 'create',
    user: {},
    requestReceivedTimestamp: '',
    stageTimestamp: '',
  };
  setAuditEvent(ctx, ev, 'a');
  return { ctx, ev };
}

describe('audit context', () => {
  it('annotations: the first value of a key wins; no-op without an event', () => {
    const { ctx, ev } = ctxAt('Metadata');
    addAuditAnnotation(ctx, 'k', 'one');
    addAuditAnnotation(ctx, 'k', 'two');
    expect(ev.annotations).toEqual({ k: 'one' });
    const bare = createRequestContext({ url: '/', headers: {} } as IncomingMessage, {} as ServerResponse);
    addAuditAnnotation(bare, 'k', 'v');
    expect(auditEventOf(bare)).toBeUndefined();
  });

  it('recordAuditObjects copies objects by level and takes a Status response into responseStatus', () => {
    const obj = { kind: 'ConfigMap', metadata: { name: 'c' } };
    const { ctx, ev } = ctxAt('RequestResponse');
    recordAuditObjects(ctx, { requestObject: obj });
    obj.metadata.name = 'changed';
    expect(ev.requestObject).toEqual({ kind: 'ConfigMap', metadata: { name: 'c' } });

    const meta = ctxAt('Metadata');
    const status = newForbidden('configmaps', 'c', 'no').status;
    recordAuditObjects(meta.ctx, { requestObject: obj, responseObject: status });
    expect(meta.ev.requestObject).toBeUndefined();
    expect(meta.ev.responseObject).toBeUndefined();
    expect(meta.ev.responseStatus).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'configmaps "c" is forbidden: no',
      reason: 'Forbidden',
      details: { name: 'c', kind: 'configmaps' },
      code: 403,
    });
  });

  it('auditUserInfo omits empty fields as kube’s JSON does', () => {
    expect(auditUserInfo({ name: 'a', uid: '', groups: [], extra: {} })).toEqual({ username: 'a' });
    expect(auditUserInfo({ name: 'a', uid: '1', groups: ['g'], extra: { k: ['v'] } })).toEqual({
      username: 'a',
      uid: '1',
      groups: ['g'],
      extra: { k: ['v'] },
    });
  });
});
