import {
  type Clock,
  type GroupVersionKind,
  type KubeObject,
  newBadRequest,
  newForbidden,
  newInternalError,
  newServiceUnavailable,
  realClock,
  type StatusError,
  type TimerHandle,
} from '@kapi/apimachinery';
import type { Authorizer } from '@kapi/authz';
import type { ValidatingWebhook } from '../admissionregistration/types.ts';
import type { AdmissionAttributes, Operation } from '../attributes.ts';
import type { MatchAttributes, NamespaceLookup } from '../matching/match-attributes.ts';
import { matchRules } from '../matching/match-rules.ts';
import { matchesNamespaceSelector, matchesObjectSelectorOrError } from '../matching/selectors.ts';
import { type AdmissionMetrics, noopAdmissionMetrics } from '../metrics.ts';
import {
  type AdmissionResponse,
  createAdmissionReview,
  newReviewUID,
  reviewVersionFor,
  verifyAdmissionResponse,
  type WebhookInvocation,
} from './admission-review.ts';
import { admissionReviewDecodeError } from './admission-review-decode.ts';
import type { AuthenticationInfoResolver } from './authentication-info.ts';
import { dryRunUnsupported, ErrCallingWebhook, ErrWebhookRejection, toStatusErr } from './errors.ts';
import { mapServiceResolver, type ServiceResolver } from './service-resolver.ts';
import { type WebhookAccessor, type WebhookConfigurationLike, webhookAccessors } from './webhook-accessor.ts';
import { WebhookCallFailure } from './webhook-call-result.ts';
import { WebhookClientManager } from './webhook-client.ts';

/** What both webhook plugins are built from. */
export interface WebhookPluginOptions<C> {
  /** The current configurations (a Source, e.g. an ObjectCache's list). Read on every request. */
  configurations: () => readonly C[];
  /** Namespaces, for namespaceSelector. */
  namespaces: NamespaceLookup;
  /** How `clientConfig.service` is reached; default {@link mapServiceResolver} over `services`. */
  serviceResolver?: ServiceResolver;
  /** `<namespace>/<name>[:<port>]` → URL, for the default service resolver. */
  services?: Readonly<Record<string, string | URL>>;
  /**
   * The credentials presented to webhooks (kube's WebhookAdmissionConfiguration kubeConfigFile, see
   * webhookAuthenticationFromConfig); webhooks are called without credentials by default.
   */
  authentication?: AuthenticationInfoResolver;
  /** For matchConditions' `authorizer` (CEL). */
  authorizer?: Authorizer;
  metrics?: AdmissionMetrics;
  /** The clock timeoutSeconds runs on (tests use a FakeClock). */
  clock?: Clock;
  /**
   * Resolves once `configurations` and `namespaces` hold the stored objects (e.g. the ObjectCaches' whenSynced). A
   * request waits for it up to 10 s, as kube's WaitForReady, then is refused with kube's "not yet ready" 403.
   */
  whenReady?: () => Promise<void>;
}

/** How long a request waits for the sources to sync (kube's admission.Handler timeToWaitForReady). */
export const READY_WAIT_MS = 10_000;

/** kube's defaults for fields a configuration may leave out (the stored objects have them already). */
export const DEFAULT_TIMEOUT_SECONDS = 10;

/** kube's rules.IsExemptAdmissionConfigurationResource: webhooks never see writes of admission configuration. */
export function isExemptAdmissionConfiguration(attrs: Pick<AdmissionAttributes, 'kind'>): boolean {
  if (attrs.kind.group !== 'admissionregistration.k8s.io') return false;
  const k = attrs.kind.kind;
  return (
    k === 'ValidatingWebhookConfiguration' ||
    k === 'MutatingWebhookConfiguration' ||
    k === 'ValidatingAdmissionPolicy' ||
    k === 'ValidatingAdmissionPolicyBinding'
  );
}

/** The attributes with object and old object replaced (a view: the rest reads through to `attrs`). */
export function withObjects(attrs: AdmissionAttributes, object: KubeObject | null, oldObject: KubeObject | null): AdmissionAttributes {
  if (object === attrs.object && oldObject === attrs.oldObject) return attrs;
  return Object.create(attrs, { object: { value: object }, oldObject: { value: oldObject } }) as AdmissionAttributes;
}

/** The request's objects in `kind`'s version (kube's NewVersionedAttributes); the request's own when the same. */
export async function versionedAttributes(attrs: AdmissionAttributes, kind: GroupVersionKind): Promise<AdmissionAttributes> {
  if (kind.group === attrs.kind.group && kind.version === attrs.kind.version && kind.kind === attrs.kind.kind) return attrs;
  const versions = attrs.versions;
  if (!versions) throw newInternalError(new Error(`unable to convert to ${kind.group}/${kind.version}, Kind=${kind.kind}: no converter`));
  try {
    const object = attrs.object ? await versions.convert(attrs.object, kind.version) : null;
    const oldObject = attrs.oldObject ? await versions.convert(attrs.oldObject, kind.version) : null;
    return withObjects(attrs, object, oldObject);
  } catch (err) {
    throw newInternalError(err);
  }
}

/**
 * kube's generic.Webhook: what the mutating and validating plugins share — the configuration source, matching
 * (ShouldCallHook), the HTTPS clients, and one call (request, answer checks, audit annotations, warnings).
 */
export abstract class GenericWebhook<W extends ValidatingWebhook> {
  abstract readonly name: string;
  protected readonly metrics: AdmissionMetrics;
  protected readonly clock: Clock;
  readonly #configurations: () => readonly WebhookConfigurationLike<W>[];
  readonly #namespaces: NamespaceLookup;
  readonly #authorizer: Authorizer | undefined;
  readonly #clients: WebhookClientManager;
  readonly #whenReady: (() => Promise<void>) | undefined;
  #ready = false;
  #lastList: object | undefined;

  constructor(options: WebhookPluginOptions<WebhookConfigurationLike<W>>) {
    this.#configurations = options.configurations;
    this.#namespaces = options.namespaces;
    this.#authorizer = options.authorizer;
    this.metrics = options.metrics ?? noopAdmissionMetrics;
    this.clock = options.clock ?? realClock;
    this.#whenReady = options.whenReady;
    this.#ready = options.whenReady === undefined;
    this.#clients = new WebhookClientManager({
      serviceResolver: options.serviceResolver ?? mapServiceResolver(options.services ?? {}),
      authentication: options.authentication,
    });
  }

  handles(_operation: Operation): boolean {
    return true;
  }

  /** Closes every webhook's kept-alive connections. */
  close(): void {
    this.#clients.close();
  }

  /** kube's WaitForReady: waits (bounded) for the sources to sync; throws kube's 403 when they did not. */
  protected async waitForReady(attrs: AdmissionAttributes): Promise<void> {
    if (this.#ready || !this.#whenReady) return;
    let timer: TimerHandle | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = this.clock.setTimeout(() => resolve(false), READY_WAIT_MS);
      timer.unref?.();
    });
    const ready = await Promise.race([this.#whenReady().then(() => true), timedOut]);
    if (timer) this.clock.clearTimeout(timer);
    if (!ready) throw newForbidden(attrs.resource, attrs.name, 'not yet ready to handle request');
    this.#ready = true;
  }

  /** The webhooks to consider, in kube's order; clients of configurations gone since the last look are closed. */
  protected hooks(): readonly WebhookAccessor<W>[] {
    const list = this.#configurations();
    const hooks = webhookAccessors(list);
    if (list !== this.#lastList) {
      this.#lastList = list;
      this.#clients.retain(new Set(hooks.map((h) => WebhookClientManager.key(h.webhook.clientConfig))));
    }
    return hooks;
  }

  /**
   * kube's ShouldCallHook: namespaceSelector, objectSelector, rules (with matchPolicy Equivalent), then
   * matchConditions on the object in the matched version. undefined when the webhook does not apply; throws the
   * StatusError kube returns (a missing namespace, a bad selector, a match condition error under Fail).
   */
  protected async shouldCallHook(
    hook: WebhookAccessor<W>,
    attrs: AdmissionAttributes,
    versioned: (kind: GroupVersionKind) => Promise<AdmissionAttributes>,
  ): Promise<WebhookInvocation | undefined> {
    const h = hook.webhook;
    const nsMatch = matchesNamespaceSelector(h.namespaceSelector, attrs, this.#namespaces);
    if (nsMatch === false) return undefined;
    const objMatch = matchesObjectSelectorOrError(h.objectSelector, attrs);
    if (objMatch === false) return undefined;
    const matched = matchRules(h.rules, h.matchPolicy ?? 'Equivalent', attrs as MatchAttributes);
    if (!matched) return undefined;
    if (nsMatch instanceof Error) throw nsMatch;
    if (objMatch instanceof Error) throw objMatch;
    const invocation: WebhookInvocation = { resource: matched.resource, subresource: attrs.subresource, kind: matched.kind };
    if (h.matchConditions?.length) {
      const va = await versioned(invocation.kind);
      const result = await hook.matchConditions(this.#authorizer).match(attrs, va, invocation);
      if (result.error) {
        // kube's matcher: a condition that is false skips the webhook; errors otherwise follow failurePolicy.
        if ((h.failurePolicy ?? 'Fail') === 'Ignore') return undefined;
        throw newForbidden(attrs.resource, attrs.name, result.error);
      }
      if (!result.matches) return undefined;
    }
    return invocation;
  }

  /**
   * One call of `hook` with `va` (the attributes in the invocation's version): kube's callHook up to the answer.
   * Throws ErrCallingWebhook (failurePolicy applies), ErrWebhookRejection or a StatusError (dry run unsupported).
   */
  protected async callHook(
    hook: WebhookAccessor<W>,
    invocation: WebhookInvocation,
    attrs: AdmissionAttributes,
    va: AdmissionAttributes,
    mutating: boolean,
  ): Promise<AdmissionResponse> {
    const h = hook.webhook;
    if (attrs.dryRun) {
      if (h.sideEffects === undefined)
        throw new ErrCallingWebhook(h.name, 'Webhook SideEffects is nil', newBadRequest('Webhook SideEffects is nil'));
      if (h.sideEffects !== 'None' && h.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(h.name);
    }
    const version = reviewVersionFor(h.admissionReviewVersions);
    if (version instanceof Error)
      throw new ErrCallingWebhook(
        h.name,
        `could not create admission objects: ${version.message}`,
        newBadRequest('error creating admission objects'),
      );
    const uid = newReviewUID();
    const review = createAdmissionReview(version, uid, attrs, invocation, va.object, va.oldObject);
    let client: ReturnType<WebhookClientManager['client']>;
    try {
      client = this.#clients.client(h.clientConfig);
    } catch (err) {
      throw new ErrCallingWebhook(
        h.name,
        `could not get REST client: ${(err as Error).message}`,
        newBadRequest('error getting REST client'),
      );
    }
    let answer: unknown;
    try {
      answer = await client.post(JSON.stringify(review), h.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS, this.clock);
    } catch (err) {
      const status: StatusError =
        err instanceof WebhookCallFailure && err.status
          ? err.status
          : mutating
            ? newServiceUnavailable('error calling webhook')
            : newBadRequest('error calling webhook');
      throw new ErrCallingWebhook(h.name, `failed to call webhook: ${(err as Error).message}`, status);
    }
    // Go's decoder refuses a response field of the wrong JSON type: a failed call, left to the failurePolicy.
    const decodeError = admissionReviewDecodeError(answer);
    if (decodeError !== undefined)
      throw new ErrCallingWebhook(
        h.name,
        `failed to call webhook: ${decodeError}`,
        mutating ? newServiceUnavailable('error calling webhook') : newBadRequest('error calling webhook'),
      );
    let result: AdmissionResponse;
    try {
      result = verifyAdmissionResponse(version, uid, mutating, answer);
    } catch (err) {
      throw new ErrCallingWebhook(
        h.name,
        `received invalid webhook response: ${(err as Error).message}`,
        newServiceUnavailable('error validating webhook response'),
      );
    }
    for (const [k, v] of Object.entries(result.auditAnnotations)) attrs.annotate?.(`${h.name}/${k}`, v);
    for (const w of result.warnings) attrs.warn?.(w);
    if (!result.allowed) throw new ErrWebhookRejection(toStatusErr(h.name, result.result));
    return result;
  }

  /** kube's metrics for one finished call: the webhook histogram and request counter, and the rejection counter. */
  protected observe(hook: W, type: 'admit' | 'validate', operation: Operation, err: unknown, seconds: number): void {
    const ignore = (hook.failurePolicy ?? 'Fail') === 'Ignore';
    let rejected = false;
    let code = 200;
    if (err instanceof ErrCallingWebhook) {
      code = err.status.code;
      if (!ignore) {
        rejected = true;
        this.metrics.webhookRejection(hook.name, type, operation, 'calling_webhook_error', code);
      }
    } else if (err instanceof ErrWebhookRejection) {
      rejected = true;
      code = err.status.code;
      this.metrics.webhookRejection(hook.name, type, operation, 'no_error', code);
    } else if (err !== undefined) {
      rejected = true;
      code = 0;
      this.metrics.webhookRejection(hook.name, type, operation, 'apiserver_internal_error', 0);
    }
    this.metrics.observeWebhook(hook.name, type, operation, rejected, seconds);
    this.metrics.webhookRequest(hook.name, type, operation, code, rejected);
  }
}
