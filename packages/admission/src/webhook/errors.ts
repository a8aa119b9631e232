import { goQuote, newBadRequest, type Status, StatusError } from '@kapi/apimachinery';

/**
 * kube's webhook errors (k8s.io/apiserver/pkg/util/webhook/error.go and admission/plugin/webhook/errors): a webhook
 * that could not be called or answered nonsense (ErrCallingWebhook, subject to failurePolicy), and a webhook that
 * answered "not allowed" (ErrWebhookRejection, never ignored).
 */

/** The webhook could not be called, or its answer was unusable. failurePolicy Ignore lets the request through. */
export class ErrCallingWebhook extends Error {
  readonly webhookName: string;
  /** The Status kube records for metrics (its code is the metric's `code`/`rejection_code`). */
  readonly status: StatusError;

  constructor(webhookName: string, reason: string | undefined, status: StatusError) {
    super(
      reason === undefined
        ? `failed calling webhook ${goQuote(webhookName)}; no further details available`
        : `failed calling webhook ${goQuote(webhookName)}: ${reason}`,
    );
    this.name = 'ErrCallingWebhook';
    this.webhookName = webhookName;
    this.status = status;
  }
}

/** The webhook answered allowed: false; `status` is what the client gets. */
export class ErrWebhookRejection extends Error {
  readonly status: StatusError;
  constructor(status: StatusError) {
    super(status.message);
    this.name = 'ErrWebhookRejection';
    this.status = status;
  }
}

/** The parts of a metav1.Status a webhook may answer with in response.status. */
export type WebhookResult = Partial<Pick<Status, 'code' | 'message' | 'reason' | 'details' | 'status' | 'metadata'>>;

/**
 * kube's webhookerrors.ToStatusErr: the webhook's own Status, its message prefixed with `admission webhook "<name>"
 * denied the request`, a code below 400 raised to 400 and the status forced to Failure (the released kube versions'
 * behaviour). The reason and details the webhook gave reach the client unchanged.
 */
export function toStatusErr(webhookName: string, result: WebhookResult | undefined | null): StatusError {
  const deniedBy = `admission webhook ${goQuote(webhookName)} denied the request`;
  const r = result ?? {};
  let message: string;
  if (r.message) message = `${deniedBy}: ${r.message}`;
  else if (r.reason) message = `${deniedBy}: ${r.reason}`;
  else message = `${deniedBy} without explanation`;
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  return new StatusError({
    code,
    message,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.details ? { details: r.details } : {}),
    ...(r.metadata ? { metadata: r.metadata } : {}),
  });
}

/** kube's NewDryRunUnsupportedErr: 400 for a dry-run request reaching a webhook with side effects. */
export function dryRunUnsupported(webhookName: string): StatusError {
  return newBadRequest(`admission webhook ${goQuote(webhookName)} does not support dry run`);
}
