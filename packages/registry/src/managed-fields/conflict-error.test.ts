import { describe, expect, it } from 'vitest';
import { newApplyConflictError } from './conflict-error.ts';
import { managerIdentifier } from './manager-id.ts';

const updater = managerIdentifier({ manager: 'mgr', operation: 'Update', apiVersion: 'v1' });
const applier = managerIdentifier({ manager: 'kubectl', operation: 'Apply' });

describe('newApplyConflictError', () => {
  it('one conflict: 409 Conflict with a FieldManagerConflict cause', () => {
    const err = newApplyConflictError([{ manager: updater, path: '.data.a' }]);
    expect(err.code).toBe(409);
    expect(err.status.reason).toBe('Conflict');
    expect(err.status.message).toBe('Apply failed with 1 conflict: conflict with "mgr" using v1: .data.a');
    expect(err.status.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "mgr" using v1', field: '.data.a' },
    ]);
  });

  it('several: grouped by manager, managers sorted', () => {
    const err = newApplyConflictError([
      { manager: updater, path: '.data.a' },
      { manager: applier, path: '.data.b' },
      { manager: updater, path: '.data.c' },
    ]);
    expect(err.status.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "kubectl":\n- .data.b\nconflicts with "mgr" using v1:\n- .data.a\n- .data.c',
    );
    expect(err.status.details?.causes?.map((c) => c.field)).toEqual(['.data.a', '.data.b', '.data.c']);
  });
});
