import { FieldSet } from '@kapi/apimachinery';
import { type Managed, timeSeconds } from './managed.ts';
import { managerIdentifier } from './manager-id.ts';

/** kube's DefaultMaxUpdateManagers: more Update entries than this and the oldest are merged into "ancient-changes". */
export const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';

/**
 * kube's capManagersManager: while there are more than `max` Update entries, the oldest (by time, then id) are
 * merged per API version into an "ancient-changes" entry, which takes the time of the newest merged into it.
 */
export function capUpdateManagers(managed: Managed, max: number): void {
  // Every write calls this; nearly every object has a few managers: count them before building anything.
  let count = 0;
  for (const vs of managed.fields.values()) if (!vs.applied) count++;
  if (count <= max) return;
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  updaters.sort((a, b) => timeSeconds(managed.times.get(a)) - timeSeconds(managed.times.get(b)) || (a < b ? -1 : a > b ? 1 : 0));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i] as string;
    const vs = managed.fields.get(id);
    if (!vs) continue;
    const time = managed.times.get(id);
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      const firstSet = managed.fields.get(first);
      managed.fields.delete(first);
      if (firstSet) managed.fields.set(bucket, firstSet);
    }
    const into = managed.fields.get(bucket);
    managed.fields.set(bucket, { set: vs.set.union(into?.set ?? FieldSet.empty()), apiVersion: vs.apiVersion, applied: vs.applied });
    managed.fields.delete(id);
    length--;
    managed.times.set(bucket, time);
  }
}
