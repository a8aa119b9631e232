import { newInternalError, StatusError, toStatusError } from '@kapi/apimachinery';
import type { AdmissionAttributes, Operation } from './attributes.ts';
import { isMutatingAdmission, isValidatingAdmission } from './capabilities.ts';
import { type AdmissionMetrics, type AdmissionStepType, noopAdmissionMetrics } from './metrics.ts';
import type { AdmissionPlugin, MutatingAdmission, ValidatingAdmission } from './plugin.ts';
import { AdmissionReinvocationContext } from './reinvocation.ts';

export interface AdmissionChainOptions {
  /** The chain's own name (when it is itself a plugin of another chain). Default AdmissionChain. */
  readonly name?: string;
  /**
   * Where the chain reports kube's step metric (one observation per admit or validate call, both mutating passes
   * together) and controller metric (one per plugin call, by the plugin's name). Default: none.
   */
  readonly metrics?: AdmissionMetrics;
}

/**
 * kube's admission chain: plugins run in the order given. `admit` runs every mutating plugin that handles
 * the operation, `validate` every validating one; the first rejection stops the chain. A plugin's
 * StatusError reaches the client as is; anything else it throws becomes a 500 naming the plugin.
 *
 * `admit` is also kube's reinvocation handler: when the attributes come without a ReinvocationContext the chain
 * gives them one, and if a plugin asked for it (`reinvocation.setShouldReinvoke()`, e.g. a webhook with
 * reinvocationPolicy IfNeeded that saw a later plugin change the object) it runs its mutating plugins once more
 * with `reinvocation.isReinvoke()` true. Attributes that already carry a context belong to an outer chain, which
 * does the second pass itself. The chain is itself a mutating and validating plugin, so chains nest.
 *
 * @example
 * const chain = new AdmissionChain([defaultLabels, denyAll('NoDeletes', ['DELETE'])]);
 * await chain.admit(attrs); // before the store
 * await chain.validate(attrs); // inside the store, on the final object
 */
export class AdmissionChain implements MutatingAdmission, ValidatingAdmission {
  readonly name: string;
  readonly plugins: readonly AdmissionPlugin[];
  readonly #metrics: AdmissionMetrics;

  constructor(plugins: readonly AdmissionPlugin[], options: string | AdmissionChainOptions = {}) {
    const opts = typeof options === 'string' ? { name: options } : options;
    this.plugins = [...plugins];
    this.name = opts.name ?? 'AdmissionChain';
    this.#metrics = opts.metrics ?? noopAdmissionMetrics;
  }

  handles(operation: Operation): boolean {
    return this.plugins.some((p) => p.handles(operation));
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    await this.#step('admit', attrs, async () => {
      if (attrs.reinvocation) return this.#admitOnce(attrs);
      const reinvocation = new AdmissionReinvocationContext();
      // Same object and oldObject (plugins mutate `object` in place), plus the context both passes share.
      const withContext: AdmissionAttributes = { ...attrs, reinvocation };
      await this.#admitOnce(withContext);
      if (!reinvocation.shouldReinvoke()) return;
      reinvocation.setIsReinvoke();
      await this.#admitOnce(withContext);
    });
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    await this.#step('validate', attrs, async () => {
      for (const plugin of this.plugins) {
        if (!plugin.handles(attrs.operation) || !isValidatingAdmission(plugin)) continue;
        await this.#run(plugin, 'validate', attrs, () => plugin.validate(attrs));
      }
    });
  }

  async #admitOnce(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) {
      if (!plugin.handles(attrs.operation) || !isMutatingAdmission(plugin)) continue;
      await this.#run(plugin, 'admit', attrs, () => plugin.admit(attrs));
    }
  }

  /** kube's WithStepMetrics around a whole phase. */
  async #step(type: AdmissionStepType, attrs: AdmissionAttributes, phase: () => Promise<void>): Promise<void> {
    const start = performance.now();
    let rejected = true;
    try {
      await phase();
      rejected = false;
    } finally {
      this.#metrics.observeStep(type, attrs.operation, rejected, (performance.now() - start) / 1000);
    }
  }

  /** One plugin's call, timed as kube's WithControllerMetrics, its error made a StatusError. */
  async #run(plugin: AdmissionPlugin, type: AdmissionStepType, attrs: AdmissionAttributes, step: () => Promise<void>): Promise<void> {
    const start = performance.now();
    let rejected = true;
    try {
      await step();
      rejected = false;
    } catch (err) {
      throw asStatusError(plugin, err);
    } finally {
      this.#metrics.observeController(plugin.name, type, attrs.operation, rejected, (performance.now() - start) / 1000);
    }
  }
}

function asStatusError(plugin: AdmissionPlugin, err: unknown): StatusError {
  if (err instanceof StatusError || typeof (err as { toStatusError?: unknown } | null)?.toStatusError === 'function') {
    return toStatusError(err);
  }
  const msg = err instanceof Error ? err.message : String(err);
  return newInternalError(new Error(`admission plugin "${plugin.name}" failed: ${msg}`, { cause: err }));
}
