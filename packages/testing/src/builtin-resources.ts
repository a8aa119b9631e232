import { ConfigMap, Event, EventsV1Event, Lease, Namespace, type ResourceDefinition, Secret, ServiceAccount } from '@kapi/registry';

/**
 * What every test server serves besides the test's own kinds: Namespace and kube's built-in kinds kapi has, those
 * controllers rely on among them (Lease for leader election, Events of both groups, ServiceAccount).
 */
export const BUILTIN_RESOURCES: readonly ResourceDefinition[] = [Namespace, ConfigMap, Secret, ServiceAccount, Event, EventsV1Event, Lease];
