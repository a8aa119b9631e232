import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LogAuditBackend } from './log-backend.ts';
import type { AuditEvent } from './types.ts';

const ev = (stage: AuditEvent['stage']): AuditEvent => ({
  kind: 'Event',
  apiVersion: 'audit.k8s.io/v1',
  level: 'Metadata',
  auditID: 'id-1',
  stage,
  requestURI: '/api/v1/pods',
  verb: 'list',
  user: { username: 'alice' },
  requestReceivedTimestamp: '2026-01-01T00:00:00.000000Z',
  stageTimestamp: '2026-01-01T00:00:00.000000Z',
});

describe('LogAuditBackend', () => {
  it('writes one JSON line per event to a stream (and leaves a stream it was given open)', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => {
      text += c.toString();
    });
    const backend = new LogAuditBackend(out);
    backend.processEvents([ev('RequestReceived'), ev('ResponseComplete')]);
    await backend.shutdown();
    expect(out.writableEnded).toBe(false);
    const lines = text.trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    expect(lines[0]).toBe(JSON.stringify(ev('RequestReceived')));
  });

  it('appends to a file it opens, and closes it on shutdown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kapi-audit-'));
    try {
      const path = join(dir, 'audit.log');
      for (const stage of ['RequestReceived', 'ResponseComplete'] as const) {
        const backend = new LogAuditBackend(path);
        backend.processEvents([ev(stage)]);
        await backend.shutdown();
      }
      expect(readFileSync(path, 'utf8')).toBe(`${JSON.stringify(ev('RequestReceived'))}\n${JSON.stringify(ev('ResponseComplete'))}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
