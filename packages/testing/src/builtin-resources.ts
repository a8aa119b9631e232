import { ConfigMap, Event, Namespace, type ResourceDefinition, Secret, ServiceAccount } from '@kapi/registry';

/** What every test server serves besides the test's own kinds: Namespace and kube's built-in kinds kapi has. */
export const BUILTIN_RESOURCES: readonly ResourceDefinition[] = [Namespace, ConfigMap, Secret, ServiceAccount, Event];
