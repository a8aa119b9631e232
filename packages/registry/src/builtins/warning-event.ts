import type { Clock } from '@kapi/apimachinery';
import type { Store } from '../store/store.ts';
import { rfc3339Seconds } from '../store/timestamp.ts';
import type { ObjectIdentity } from './owner-graph.ts';

/**
 * A controller's event recorder for Warnings about an object, as core/v1 Events written to `events()` (nothing while
 * Event is not served). A failed write is dropped, as client-go's broadcaster drops events it cannot write.
 */
export function warningEventRecorder(
  events: () => Store | undefined,
  clock: Clock,
  component: string,
): (regarding: ObjectIdentity, reason: string, message: string) => void {
  let seq = 0;
  return (regarding, reason, message) => {
    const store = events();
    if (!store) return;
    const now = rfc3339Seconds(clock.now());
    const namespace = regarding.namespace || 'default';
    // client-go names an event `<object>.<unix nanos in hex>`; the sequence keeps two in one millisecond apart.
    const suffix = (clock.now() * 1000 + (seq++ % 1000)).toString(16);
    void store
      .create(
        { namespace },
        {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: `${regarding.name}.${suffix}`, namespace },
          involvedObject: {
            apiVersion: regarding.apiVersion,
            kind: regarding.kind,
            name: regarding.name,
            uid: regarding.uid,
            ...(regarding.namespace ? { namespace: regarding.namespace } : {}),
          },
          reason,
          message,
          type: 'Warning',
          source: { component },
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      )
      .catch(() => {});
  };
}
