import type { KubeObject } from '@kapi/apimachinery';

/** The group of APIService (kube-aggregator's apiregistration). */
export const APIREGISTRATION_GROUP = 'apiregistration.k8s.io';

/** A Service an APIService's requests are proxied to (apiregistration/v1 ServiceReference); port defaults to 443. */
export interface APIServiceServiceReference {
  namespace?: string;
  name?: string;
  port?: number;
}

export interface APIServiceSpec {
  /** Absent: the group-version is served by this server chain (a local APIService). */
  service?: APIServiceServiceReference | null;
  group?: string;
  version?: string;
  insecureSkipTLSVerify?: boolean;
  /** PEM bundle, base64 in JSON as Go's []byte. */
  caBundle?: string;
  groupPriorityMinimum?: number;
  versionPriority?: number;
}

export type APIServiceConditionStatus = 'True' | 'False' | 'Unknown';

export interface APIServiceCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface APIServiceStatus {
  conditions?: APIServiceCondition[];
}

/** apiregistration.k8s.io/v1 APIService. */
export interface APIService extends KubeObject {
  spec?: APIServiceSpec;
  status?: APIServiceStatus;
}

/** The condition kube's availability controller keeps. */
export const AVAILABLE_CONDITION = 'Available';

/** NewLocalAvailableAPIServiceCondition's reason and message. */
export const LOCAL_AVAILABLE_REASON = 'Local';
export const LOCAL_AVAILABLE_MESSAGE = 'Local APIServices are always available';
