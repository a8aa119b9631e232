import { type GroupVersionKind, newInternalError } from '@kapi/apimachinery';
import type { ValidatingWebhook, ValidatingWebhookConfiguration } from '../admissionregistration/types.ts';
import type { AdmissionAttributes } from '../attributes.ts';
import type { ValidatingAdmission } from '../plugin.ts';
import type { WebhookInvocation } from './admission-review.ts';
import { ErrCallingWebhook, ErrWebhookRejection } from './errors.ts';
import { GenericWebhook, isExemptAdmissionConfiguration, versionedAttributes, type WebhookPluginOptions } from './generic-webhook.ts';
import type { WebhookAccessor } from './webhook-accessor.ts';

export const VALIDATING_WEBHOOK_PLUGIN_NAME = 'ValidatingAdmissionWebhook';

/** kube's audit annotation prefix for a validating webhook that failed open. */
export const VALIDATING_FAILED_OPEN_ANNOTATION_PREFIX = 'failed-open.validating.webhook.admission.k8s.io/';

export type ValidatingWebhooksOptions = WebhookPluginOptions<ValidatingWebhookConfiguration>;

const kindKey = (k: GroupVersionKind): string => `${k.group}/${k.version}/${k.kind}`;

/**
 * kube's ValidatingAdmissionWebhook: the webhooks of the ValidatingWebhookConfigurations that match the request are
 * called all at once; the request is refused with the first refusal to arrive (a denial, or a webhook that could
 * not be called under failurePolicy Fail). Objects are sent in the version each webhook matched.
 */
export class ValidatingWebhooks extends GenericWebhook<ValidatingWebhook> implements ValidatingAdmission {
  readonly name = VALIDATING_WEBHOOK_PLUGIN_NAME;

  constructor(options: ValidatingWebhooksOptions) {
    super(options);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (isExemptAdmissionConfiguration(attrs)) return;
    await this.waitForReady(attrs);
    const hooks = this.hooks();
    if (hooks.length === 0) return;
    // One conversion per version asked for, shared by matchConditions and the calls.
    const byKind = new Map<string, Promise<AdmissionAttributes>>();
    const versioned = (kind: GroupVersionKind): Promise<AdmissionAttributes> => {
      const key = kindKey(kind);
      let p = byKind.get(key);
      if (!p) {
        p = versionedAttributes(attrs, kind);
        byKind.set(key, p);
      }
      return p;
    };
    const relevant: { hook: WebhookAccessor<ValidatingWebhook>; invocation: WebhookInvocation; index: number }[] = [];
    for (let i = 0; i < hooks.length; i++) {
      const hook = hooks[i] as WebhookAccessor<ValidatingWebhook>;
      const invocation = await this.shouldCallHook(hook, attrs, versioned);
      if (invocation) relevant.push({ hook, invocation, index: i });
    }
    if (relevant.length === 0) return;
    const errors: unknown[] = [];
    await Promise.all(
      relevant.map(async ({ hook, invocation, index }) => {
        const h = hook.webhook;
        const start = performance.now();
        let err: unknown;
        try {
          await this.callHook(hook, invocation, attrs, await versioned(invocation.kind), false);
        } catch (e) {
          err = e;
        }
        this.observe(h, 'validate', attrs.operation, err, (performance.now() - start) / 1000);
        if (err === undefined) return;
        if (err instanceof ErrCallingWebhook) {
          if ((h.failurePolicy ?? 'Fail') === 'Ignore') {
            this.metrics.webhookFailOpen(h.name, 'validate');
            attrs.annotate?.(`${VALIDATING_FAILED_OPEN_ANNOTATION_PREFIX}round_0_index_${index}`, h.name);
            return;
          }
          errors.push(newInternalError(err));
          return;
        }
        errors.push(err instanceof ErrWebhookRejection ? err.status : err);
      }),
    );
    // As kube: the first error to arrive is the answer (the others are only logged there).
    if (errors.length > 0) throw errors[0];
  }
}
