import type { KubeObject } from '@kapi/apimachinery';

/**
 * apiextensions.k8s.io/v1 (and v1beta1, the same shape) ConversionReview: what kube-apiserver POSTs to a CRD's
 * conversion webhook, and what the webhook answers.
 */
export interface ConversionReview {
  apiVersion: string;
  kind: 'ConversionReview';
  request?: ConversionRequest;
  response?: ConversionResponse;
}

export interface ConversionRequest {
  /** Chosen by the caller per request; the answer must repeat it (v1). */
  uid: string;
  /** "group/version" the objects are wanted in. */
  desiredAPIVersion: string;
  objects: KubeObject[];
}

export interface ConversionResponse {
  uid: string;
  convertedObjects?: unknown[];
  /** A metav1.Status; status "Success" or a failure with its message. */
  result: { status?: string; message?: string; reason?: string; code?: number };
}
