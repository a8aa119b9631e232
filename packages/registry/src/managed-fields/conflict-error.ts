import { StatusError } from '@kapi/apimachinery';
import { printManager } from './manager-id.ts';

/** One field an apply would take from another manager: the manager's identifier and the field's path as SMD prints it. */
export interface FieldConflict {
  manager: string;
  /** e.g. `.data.a`, `.spec.ports[port=80,protocol="TCP"].name`. */
  path: string;
}

/**
 * kube's NewConflictError: 409 Conflict with a FieldManagerConflict cause per field and the message
 * `Apply failed with 1 conflict: conflict with "m" using v1: .data.a`, or for several, grouped by manager (sorted).
 */
export function newApplyConflictError(conflicts: readonly FieldConflict[]): StatusError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: c.path,
  }));
  return new StatusError({ code: 409, reason: 'Conflict', message: conflictMessage(conflicts), details: { causes } });
}

function conflictMessage(conflicts: readonly FieldConflict[]): string {
  const first = conflicts[0];
  if (conflicts.length === 1 && first) return `Apply failed with 1 conflict: conflict with ${printManager(first.manager)}: ${first.path}`;
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const paths = byManager.get(c.manager);
    if (paths) paths.push(c.path);
    else byManager.set(c.manager, [c.path]);
  }
  const lines: string[] = [];
  // Go sorts the identifiers as strings (byte order).
  for (const m of [...byManager.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    lines.push(`conflicts with ${printManager(m)}:`);
    for (const p of byManager.get(m) ?? []) lines.push(`- ${p}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
