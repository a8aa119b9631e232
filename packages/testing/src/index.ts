// @kapi/testing: an in-process Kubernetes API server for controller tests (issue 14; being built).
export {};
