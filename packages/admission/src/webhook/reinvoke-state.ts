import { copyJson, jsonEqual, type KubeObject } from '@kapi/apimachinery';

/**
 * kube's webhookReinvokeContext: the mutating webhook plugin's state across the chain's two passes. It remembers
 * the object after its last run (to see whether later plugins changed it) and which `IfNeeded` webhooks ran before a
 * change, i.e. the ones the second pass must call again.
 */
export class WebhookReinvokeState {
  #lastOutput: KubeObject | null = null;
  #previouslyInvoked = new Set<string>();
  #reinvoke = new Set<string>();

  outputChangedSinceLastInvocation(object: KubeObject | null): boolean {
    return !jsonEqual(this.#lastOutput, object);
  }

  setLastInvocationOutput(object: KubeObject | null): void {
    this.#lastOutput = object === null ? null : copyJson(object);
  }

  addReinvocableToPreviouslyInvoked(uid: string): void {
    this.#previouslyInvoked.add(uid);
  }

  /** A change happened: every reinvocable webhook that ran before it is due again. */
  requireReinvokingPreviouslyInvoked(): void {
    if (this.#previouslyInvoked.size === 0) return;
    for (const uid of this.#previouslyInvoked) this.#reinvoke.add(uid);
    this.#previouslyInvoked = new Set();
  }

  shouldReinvoke(uid: string): boolean {
    return this.#reinvoke.has(uid);
  }
}
