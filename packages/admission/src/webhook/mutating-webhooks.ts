import {
  applyJsonPatch,
  type GroupVersionKind,
  goQuote,
  jsonEqual,
  type KubeObject,
  newInternalError,
  newServiceUnavailable,
} from '@kapi/apimachinery';
import type { MutatingWebhook, MutatingWebhookConfiguration } from '../admissionregistration/types.ts';
import type { AdmissionAttributes } from '../attributes.ts';
import type { MutatingAdmission } from '../plugin.ts';
import { AdmissionReinvocationContext } from '../reinvocation.ts';
import type { WebhookInvocation } from './admission-review.ts';
import { ErrCallingWebhook, ErrWebhookRejection, toStatusErr } from './errors.ts';
import { GenericWebhook, isExemptAdmissionConfiguration, versionedAttributes, type WebhookPluginOptions } from './generic-webhook.ts';
import { WebhookReinvokeState } from './reinvoke-state.ts';
import type { WebhookAccessor } from './webhook-accessor.ts';

export const MUTATING_WEBHOOK_PLUGIN_NAME = 'MutatingAdmissionWebhook';

/** kube's audit annotation prefixes of the mutating dispatcher. */
export const PATCH_AUDIT_ANNOTATION_PREFIX = 'patch.webhook.admission.k8s.io/';
export const MUTATION_AUDIT_ANNOTATION_PREFIX = 'mutation.webhook.admission.k8s.io/';
export const MUTATION_FAILED_OPEN_ANNOTATION_PREFIX = `failed-open.${MUTATION_AUDIT_ANNOTATION_PREFIX}`;

export type MutatingWebhooksOptions = WebhookPluginOptions<MutatingWebhookConfiguration>;

/** Replaces `target`'s fields with `source`'s: the request's object is changed in place, as admission requires. */
function replaceContents(target: KubeObject, source: KubeObject): void {
  const t = target as Record<string, unknown>;
  for (const k of Object.keys(t)) if (!Object.hasOwn(source, k)) delete t[k];
  Object.assign(t, source);
}

/** A patched object in the matched version, converted back to the request's version. */
async function convertBack(attrs: AdmissionAttributes, obj: KubeObject): Promise<KubeObject> {
  if (!attrs.versions) throw newInternalError(new Error('no converter for the object'));
  try {
    return await attrs.versions.convert(obj, attrs.kind.version);
  } catch (err) {
    throw newInternalError(err);
  }
}

const sameKind = (a: GroupVersionKind, b: GroupVersionKind): boolean => a.group === b.group && a.version === b.version && a.kind === b.kind;

/**
 * kube's MutatingAdmissionWebhook: the webhooks of the MutatingWebhookConfigurations, called one after another in
 * order (configurations by name). Each matching webhook gets an AdmissionReview with the object as changed by the
 * ones before it (converted to the version it matched); a JSONPatch answer is applied to the request's object in
 * place. `reinvocationPolicy: IfNeeded` webhooks are called again in the chain's second pass when a later plugin
 * changed the object. failurePolicy decides on webhooks that cannot be called; a denial always refuses the request.
 */
export class MutatingWebhooks extends GenericWebhook<MutatingWebhook> implements MutatingAdmission {
  readonly name = MUTATING_WEBHOOK_PLUGIN_NAME;

  constructor(options: MutatingWebhooksOptions) {
    super(options);
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (isExemptAdmissionConfiguration(attrs)) return;
    await this.waitForReady(attrs);
    const hooks = this.hooks();
    if (hooks.length === 0) return;
    // Without a chain's context (a plugin driven alone) there is one pass.
    const rctx = attrs.reinvocation ?? new AdmissionReinvocationContext();
    let state = rctx.value(this.name) as WebhookReinvokeState | undefined;
    if (!state) {
      state = new WebhookReinvokeState();
      rctx.setValue(this.name, state);
    }
    if (rctx.isReinvoke() && state.outputChangedSinceLastInvocation(attrs.object)) {
      // In-tree plugins changed the object since the webhooks' last run: every eligible webhook runs again.
      state.requireReinvokingPreviouslyInvoked();
    }
    try {
      await this.#dispatch(attrs, hooks, rctx, state);
    } finally {
      state.setLastInvocationOutput(attrs.object);
    }
  }

  async #dispatch(
    attrs: AdmissionAttributes,
    hooks: readonly WebhookAccessor<MutatingWebhook>[],
    rctx: NonNullable<AdmissionAttributes['reinvocation']>,
    state: WebhookReinvokeState,
  ): Promise<void> {
    // The object in the version of the last webhook, reused while the next ones ask for the same version.
    let cached: { kind: GroupVersionKind; attrs: AdmissionAttributes } | undefined;
    const versioned = async (kind: GroupVersionKind): Promise<AdmissionAttributes> => {
      if (sameKind(kind, attrs.kind)) return attrs;
      if (!cached || !sameKind(cached.kind, kind)) cached = { kind, attrs: await versionedAttributes(attrs, kind) };
      return cached.attrs;
    };
    const round = rctx.isReinvoke() ? 1 : 0;
    for (let i = 0; i < hooks.length; i++) {
      const hook = hooks[i] as WebhookAccessor<MutatingWebhook>;
      const invocation = await this.shouldCallHook(hook, attrs, versioned);
      if (!invocation) continue;
      // In the second pass only webhooks due again are called (never one skipped in the first pass).
      if (rctx.isReinvoke() && !state.shouldReinvoke(hook.uid)) continue;
      const h = hook.webhook;
      const va = await versioned(invocation.kind);
      const start = performance.now();
      let changed = false;
      let err: unknown;
      try {
        changed = await this.#callMutating(hook, invocation, attrs, va, round, i);
        if (changed) cached = undefined;
      } catch (e) {
        err = e;
      }
      this.observe(h, 'admit', attrs.operation, err, (performance.now() - start) / 1000);
      if (changed) {
        state.requireReinvokingPreviouslyInvoked();
        rctx.setShouldReinvoke();
      }
      if (h.reinvocationPolicy === 'IfNeeded') state.addReinvocableToPreviouslyInvoked(hook.uid);
      if (err === undefined) continue;
      if (err instanceof ErrCallingWebhook) {
        if ((h.failurePolicy ?? 'Fail') === 'Ignore') {
          this.metrics.webhookFailOpen(h.name, 'admit');
          attrs.annotate?.(`${MUTATION_FAILED_OPEN_ANNOTATION_PREFIX}round_${round}_index_${i}`, h.name);
          continue;
        }
        throw newInternalError(err);
      }
      if (err instanceof ErrWebhookRejection) throw err.status;
      throw err;
    }
  }

  /** One mutating call; true when its patch changed the object. Updates `attrs.object` in place. */
  async #callMutating(
    hook: WebhookAccessor<MutatingWebhook>,
    invocation: WebhookInvocation,
    attrs: AdmissionAttributes,
    va: AdmissionAttributes,
    round: number,
    index: number,
  ): Promise<boolean> {
    const h = hook.webhook;
    let changed = false;
    try {
      const result = await this.callHook(hook, invocation, attrs, va, true);
      if (!result.patch) return false;
      let patch: unknown;
      try {
        patch = JSON.parse(result.patch.toString('utf8'));
        if (!Array.isArray(patch)) throw new Error('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
      } catch (e) {
        throw new ErrCallingWebhook(
          h.name,
          `received undecodable patch in webhook response: ${(e as Error).message}`,
          newServiceUnavailable('error decoding patch in webhook response'),
        );
      }
      if (patch.length === 0) return false;
      const current = va.object;
      if (current === null)
        throw newInternalError(
          new Error(`admission webhook ${goQuote(h.name)} attempted to modify the object, which is not supported for this operation`),
        );
      if (result.patchType !== 'JSONPatch')
        throw new ErrCallingWebhook(h.name, `unsupported patch type ${goQuote(result.patchType)}`, toStatusErr(h.name, result.result));
      let patched: unknown;
      try {
        patched = applyJsonPatch(current, patch);
      } catch (e) {
        throw newInternalError(e);
      }
      // The result must still be an object of the kind the webhook was sent (kube decodes it into that type).
      const p = patched as Partial<KubeObject> | null;
      if (!p || typeof p !== 'object' || Array.isArray(p) || !p.metadata || typeof p.metadata !== 'object' || Array.isArray(p.metadata))
        throw newInternalError(
          new Error(`admission webhook ${goQuote(h.name)} patched the object into something that is not an object with metadata`),
        );
      if (p.apiVersion !== current.apiVersion || p.kind !== current.kind)
        throw newInternalError(
          new Error(
            `admission webhook ${goQuote(h.name)} changed the object's apiVersion/kind from ${current.apiVersion}/${current.kind} to ${String(p.apiVersion)}/${String(p.kind)}`,
          ),
        );
      changed = !jsonEqual(current, patched);
      attrs.annotate?.(
        `${PATCH_AUDIT_ANNOTATION_PREFIX}round_${round}_index_${index}`,
        JSON.stringify({ configuration: hook.configurationName, webhook: h.name, patch, patchType: 'JSONPatch' }),
      );
      if (attrs.object) {
        // Back to the request's version, then into the request's object.
        replaceContents(attrs.object, va === attrs ? (patched as KubeObject) : await convertBack(attrs, patched as KubeObject));
      }
      return changed;
    } finally {
      attrs.annotate?.(
        `${MUTATION_AUDIT_ANNOTATION_PREFIX}round_${round}_index_${index}`,
        JSON.stringify({ configuration: hook.configurationName, webhook: h.name, mutated: changed }),
      );
    }
  }
}
