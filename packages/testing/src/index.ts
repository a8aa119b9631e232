// @kapi/testing: an in-process Kubernetes API server for controller tests.
export { BUILTIN_RESOURCES } from './builtin-resources.ts';
export * from './faults/index.ts';
export { type CRDInput, crdManifests, installCRDs } from './install-crds.ts';
export type { KubeConfigLike } from './kube-config.ts';
export { startTestServer, type TestServer, type TestServerOptions } from './start-test-server.ts';
export type { TestUser } from './token-authenticator.ts';
export { type TestHooks, type TestServerHandle, useTestServer } from './use-test-server.ts';
