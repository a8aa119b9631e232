import type { StatusDetails } from '@kapi/apimachinery';

/** audit.k8s.io/v1 Level: how much of a request is recorded. */
export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';

/** audit.k8s.io/v1 Stage. */
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

/** authentication.k8s.io/v1 UserInfo as it appears in an audit event (empty fields omitted). */
export interface AuditUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** audit.k8s.io/v1 ObjectReference (empty fields omitted). */
export interface AuditObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** The metav1.Status kube records as `responseStatus`: `{metadata: {}, code}` on success, the Status fields on failure. */
export interface AuditResponseStatus {
  metadata: Record<string, never>;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** One audit.k8s.io/v1 Event, with kube's JSON field names and order. Timestamps are RFC 3339 with microseconds. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: AuditUserInfo;
  impersonatedUser?: AuditUserInfo;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: AuditObjectReference;
  responseStatus?: AuditResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}
