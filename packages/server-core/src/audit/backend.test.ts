import { describe, expect, it } from 'vitest';
import type { AuditBackend } from './backend.ts';
import type { AuditEvent } from './types.ts';

describe('AuditBackend', () => {
  it('is a small contract a test double implements in a few lines', async () => {
    const seen: AuditEvent[] = [];
    const backend: AuditBackend = { processEvents: (evs) => void seen.push(...evs), shutdown: async () => {} };
    backend.processEvents([]);
    await backend.shutdown();
    expect(seen).toEqual([]);
  });
});
