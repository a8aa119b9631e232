import type { KubeObject } from '@kapi/apimachinery';
import type { Authorizer } from '@kapi/authz';
import type { ValidatingWebhook } from '../admissionregistration/types.ts';
import { type CompiledMatchConditions, compileWebhookMatchConditions } from './match-conditions.ts';

/** A webhook configuration as the plugins read it (Mutating- or ValidatingWebhookConfiguration). */
export interface WebhookConfigurationLike<W> extends KubeObject {
  webhooks?: W[];
}

/**
 * kube's webhook.WebhookAccessor: one webhook of one configuration, with its uid (`<configuration>/<webhook>/<n>`,
 * n counting webhooks of the same name in the configuration) and its compiled matchConditions, kept as long as the
 * configuration object is.
 */
export class WebhookAccessor<W extends ValidatingWebhook> {
  readonly uid: string;
  readonly configurationName: string;
  readonly webhook: W;
  #conditions: CompiledMatchConditions | undefined;

  constructor(uid: string, configurationName: string, webhook: W) {
    this.uid = uid;
    this.configurationName = configurationName;
    this.webhook = webhook;
  }

  matchConditions(authorizer: Authorizer | undefined): CompiledMatchConditions {
    this.#conditions ??= compileWebhookMatchConditions(this.webhook.matchConditions ?? [], authorizer);
    return this.#conditions;
  }
}

const perConfiguration = new WeakMap<object, WebhookAccessor<ValidatingWebhook>[]>();
const perList = new WeakMap<object, WebhookAccessor<ValidatingWebhook>[]>();

function accessorsOf<W extends ValidatingWebhook>(config: WebhookConfigurationLike<W>): WebhookAccessor<W>[] {
  let out = perConfiguration.get(config) as WebhookAccessor<W>[] | undefined;
  if (!out) {
    const name = config.metadata?.name ?? '';
    const seen = new Map<string, number>();
    out = (config.webhooks ?? []).map((w) => {
      const n = seen.get(w.name) ?? 0;
      seen.set(w.name, n + 1);
      return new WebhookAccessor(`${name}/${w.name}/${n}`, name, w);
    });
    perConfiguration.set(config, out as WebhookAccessor<ValidatingWebhook>[]);
  }
  return out;
}

/**
 * The webhooks of the configurations in kube's order: configurations sorted by name, webhooks in their order. The
 * result is cached per list and per configuration object, so an unchanged source costs nothing per request.
 */
export function webhookAccessors<W extends ValidatingWebhook>(
  configurations: readonly WebhookConfigurationLike<W>[],
): readonly WebhookAccessor<W>[] {
  let out = perList.get(configurations) as WebhookAccessor<W>[] | undefined;
  if (!out) {
    const sorted = [...configurations].sort((a, b) => {
      const x = a.metadata?.name ?? '';
      const y = b.metadata?.name ?? '';
      return x < y ? -1 : x > y ? 1 : 0;
    });
    out = sorted.flatMap((c) => accessorsOf(c));
    perList.set(configurations, out as WebhookAccessor<ValidatingWebhook>[]);
  }
  return out;
}
