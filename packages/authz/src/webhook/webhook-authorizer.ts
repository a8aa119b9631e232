import type { UserInfo } from '@kapi/authn';
import {
  loadWebhookKubeconfig,
  type WebhookAttempt,
  WebhookClient,
  type WebhookClientConfig,
  type WebhookClientOptions,
} from '@kapi/authn';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RulesResult } from '../authorizer.ts';
import { ExpiringLRU, type NowClock } from './expiring-lru.ts';

/** kube-apiserver's --authorization-webhook-cache-authorized-ttl default: 5 minutes. */
export const DEFAULT_AUTHORIZED_TTL_MS = 5 * 60_000;
/** kube-apiserver's --authorization-webhook-cache-unauthorized-ttl default: 30 seconds. */
export const DEFAULT_UNAUTHORIZED_TTL_MS = 30_000;
/** The name kube-apiserver gives the webhook configured by flags (the `name` label of its metrics). */
export const DEFAULT_WEBHOOK_NAME = 'default';
/** kube's webhook RulesFor error. */
export const WEBHOOK_RULES_NOT_SUPPORTED = 'webhook authorizer does not support user rule resolution';

/** kube's LRUExpireCache size for webhook decisions, and the largest requester-controlled attributes still cached. */
const CACHE_SIZE = 8192;
const MAX_CONTROLLED_ATTR_CACHE_SIZE = 10_000;

/** How one webhook call ended, as kube's webhook metrics label it. */
export type WebhookEvaluationResult = 'success' | 'timeout' | 'error' | 'canceled';

/**
 * Callbacks for kube's webhook authorizer metrics; the integrator maps them to
 * `apiserver_authorization_webhook_evaluations_total{name,result}`,
 * `apiserver_authorization_webhook_duration_seconds{name,result}` and
 * `apiserver_authorization_webhook_evaluations_fail_open_total{name,result}`.
 */
export interface WebhookAuthorizerMetrics {
  /** Every call to the webhook (each retry too), with its duration. */
  onEvaluation?(name: string, result: WebhookEvaluationResult, seconds: number): void;
  /** A request the webhook could not decide, answered NoOpinion (kube's fail-open); `result` is the last call's. */
  onFailOpen?(name: string, result: WebhookEvaluationResult): void;
}

export interface WebhookAuthorizerOptions extends WebhookClientOptions {
  /** The SubjectAccessReview version sent and expected (kube's --authorization-webhook-version). Default "v1". */
  version?: 'v1' | 'v1beta1';
  /** How long an allowed decision is remembered; 0: not at all. Default 5 min. */
  authorizedTTLMs?: number;
  /** How long a decision that is not "allowed" is remembered; 0: not at all. Default 30 s. */
  unauthorizedTTLMs?: number;
  /** The webhook's name for metrics. Default "default". */
  name?: string;
  metrics?: WebhookAuthorizerMetrics;
  /** Reads the time for cache expiry; injected by tests. */
  clock?: NowClock;
}

/** A failed call to the webhook: evaluation error, kube's "Failed to make webhook authorizer request". */
export class WebhookAuthorizerError extends Error {
  constructor(cause: Error) {
    super(`Failed to make webhook authorizer request: ${cause.message}`, { cause });
    this.name = 'WebhookAuthorizerError';
  }
}

interface ReviewStatus {
  allowed: boolean;
  denied: boolean;
  reason: string;
}

/**
 * kube's webhook authorizer (k8s.io/apiserver/plugin/pkg/authorizer/webhook, `--authorization-mode=Webhook`): each
 * request becomes an authorization.k8s.io SubjectAccessReview POSTed to the service a kubeconfig file names; its
 * `status.allowed` / `status.denied` / `status.reason` are the decision (neither: NoOpinion). Decisions are cached by the
 * whole review spec, allowed ones for 5 minutes and others for 30 seconds (kube's defaults). When the webhook cannot be
 * reached or fails (after kube's retries), the request is not decided here: `authorize` throws a
 * {@link WebhookAuthorizerError}, which the union counts as NoOpinion with an evaluation error — kube's fail-open
 * (NoOpinion plus error), so a later authorizer may still allow and otherwise the server answers 500.
 *
 * @example
 * const webhook = WebhookAuthorizer.fromKubeconfigFile('/etc/kapi/authz-webhook.json');
 */
export class WebhookAuthorizer implements Authorizer {
  readonly #client: WebhookClient;
  readonly #version: 'v1' | 'v1beta1';
  readonly #authorizedTTL: number;
  readonly #unauthorizedTTL: number;
  readonly #name: string;
  readonly #metrics: WebhookAuthorizerMetrics;
  readonly #cache: ExpiringLRU<ReviewStatus>;

  constructor(config: WebhookClientConfig, options: WebhookAuthorizerOptions = {}) {
    const version = options.version ?? 'v1';
    if (version !== 'v1' && version !== 'v1beta1')
      throw new Error(`unsupported webhook authorizer version ${JSON.stringify(version)}, supported versions are "v1", "v1beta1"`);
    this.#client = new WebhookClient(config, options);
    this.#version = version;
    this.#authorizedTTL = options.authorizedTTLMs ?? DEFAULT_AUTHORIZED_TTL_MS;
    this.#unauthorizedTTL = options.unauthorizedTTLMs ?? DEFAULT_UNAUTHORIZED_TTL_MS;
    this.#name = options.name ?? DEFAULT_WEBHOOK_NAME;
    this.#metrics = options.metrics ?? {};
    this.#cache = new ExpiringLRU(CACHE_SIZE, options.clock ?? Date);
  }

  /** The webhook of a kubeconfig-format file (kube's --authorization-webhook-config-file); JSON unless `parse` is given. */
  static fromKubeconfigFile(
    path: string,
    options: WebhookAuthorizerOptions & { parse?: (text: string) => unknown } = {},
  ): WebhookAuthorizer {
    return new WebhookAuthorizer(loadWebhookKubeconfig(path, options.parse), options);
  }

  /** Closes kept-alive connections to the webhook. */
  close(): void {
    this.#client.close();
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const spec = reviewSpec(attrs, this.#version);
    const key = goJSON(spec);
    let status = this.#cache.get(key);
    if (!status) {
      status = await this.#review(spec);
      const ttl = status.allowed ? this.#authorizedTTL : this.#unauthorizedTTL;
      if (ttl > 0 && shouldCache(attrs)) this.#cache.add(key, status, ttl);
    }
    // Both set: kube answers Deny plus an error ("returned both allow and deny response"); a Deny stops the union as well.
    if (status.denied) return { decision: 'Deny', reason: status.reason };
    if (status.allowed) return { decision: 'Allow', reason: status.reason };
    return { decision: 'NoOpinion', reason: status.reason };
  }

  /** As kube's webhook: rules cannot be listed, so none, incomplete, with kube's error. */
  async rulesFor(_user: UserInfo, _namespace: string): Promise<RulesResult> {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, error: new Error(WEBHOOK_RULES_NOT_SUPPORTED) };
  }

  async #review(spec: Record<string, unknown>): Promise<ReviewStatus> {
    const review = {
      kind: 'SubjectAccessReview',
      apiVersion: `authorization.k8s.io/${this.#version}`,
      metadata: { creationTimestamp: null },
      spec,
      status: { allowed: false },
    };
    let last: WebhookEvaluationResult = 'success';
    const onAttempt = (a: WebhookAttempt): void => {
      last = a.error ? (a.error.timeout ? 'timeout' : 'error') : 'success';
      this.#metrics.onEvaluation?.(this.#name, last, a.seconds);
    };
    let reply: unknown;
    try {
      // client-go's JSON encoder ends the body with a newline.
      reply = await this.#client.post(`${goJSON(review)}\n`, onAttempt);
    } catch (err) {
      this.#metrics.onFailOpen?.(this.#name, last);
      throw new WebhookAuthorizerError(err as Error);
    }
    const status = (reply as { status?: unknown } | null)?.status;
    const s = status && typeof status === 'object' ? (status as Record<string, unknown>) : {};
    return { allowed: s.allowed === true, denied: s.denied === true, reason: typeof s.reason === 'string' ? s.reason : '' };
  }
}

/**
 * The review's spec as kube builds it, in the field order of Go's json.Marshal of SubjectAccessReviewSpec (empty fields
 * left out, extra's keys sorted). v1beta1 names the groups field "group".
 */
function reviewSpec(attrs: AuthorizationAttributes, version: 'v1' | 'v1beta1'): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (attrs.resourceRequest) {
    spec.resourceAttributes = omitEmpty({
      namespace: attrs.namespace,
      verb: attrs.verb,
      group: attrs.apiGroup,
      version: attrs.apiVersion,
      resource: attrs.resource,
      subresource: attrs.subresource,
      name: attrs.name,
    });
  } else {
    spec.nonResourceAttributes = omitEmpty({ path: attrs.path, verb: attrs.verb });
  }
  const u = attrs.user;
  if (u.name) spec.user = u.name;
  if (u.groups.length) spec[version === 'v1' ? 'groups' : 'group'] = [...u.groups];
  const extraKeys = Object.keys(u.extra ?? {}).sort();
  if (extraKeys.length) spec.extra = Object.fromEntries(extraKeys.map((k) => [k, u.extra?.[k] ?? null]));
  if (u.uid) spec.uid = u.uid;
  return spec;
}

function omitEmpty(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== ''));
}

/** Go's json.Marshal text: as JSON.stringify, with <, >, & and U+2028/9 escaped as Go escapes them. */
function goJSON(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** kube's shouldCache: requests whose requester-controlled attributes are huge are not cached (a DoS guard). */
function shouldCache(a: AuthorizationAttributes): boolean {
  let size = 0;
  for (const s of [a.namespace, a.verb, a.apiGroup, a.apiVersion, a.resource, a.subresource, a.name, a.path]) size += Buffer.byteLength(s);
  return size < MAX_CONTROLLED_ATTR_CACHE_SIZE;
}
