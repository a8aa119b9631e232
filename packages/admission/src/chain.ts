import { newInternalError, StatusError, toStatusError } from '@kapi/apimachinery';
import type { AdmissionAttributes, Operation } from './attributes.ts';
import { isMutatingAdmission, isValidatingAdmission } from './capabilities.ts';
import type { AdmissionPlugin, MutatingAdmission, ValidatingAdmission } from './plugin.ts';

/**
 * kube's admission chain: plugins run in the order given. `admit` runs every mutating plugin that handles
 * the operation, `validate` every validating one; the first rejection stops the chain. A plugin's
 * StatusError reaches the client as is; anything else it throws becomes a 500 naming the plugin.
 * The chain is itself a mutating and validating plugin, so chains nest.
 *
 * @example
 * const chain = new AdmissionChain([defaultLabels, denyAll('NoDeletes', ['DELETE'])]);
 * await chain.admit(attrs); // before the store
 * await chain.validate(attrs); // inside the store, on the final object
 */
export class AdmissionChain implements MutatingAdmission, ValidatingAdmission {
  readonly name: string;
  readonly plugins: readonly AdmissionPlugin[];

  constructor(plugins: readonly AdmissionPlugin[], name = 'AdmissionChain') {
    this.plugins = [...plugins];
    this.name = name;
  }

  handles(operation: Operation): boolean {
    return this.plugins.some((p) => p.handles(operation));
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) {
      if (!plugin.handles(attrs.operation) || !isMutatingAdmission(plugin)) continue;
      await run(plugin, () => plugin.admit(attrs));
    }
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) {
      if (!plugin.handles(attrs.operation) || !isValidatingAdmission(plugin)) continue;
      await run(plugin, () => plugin.validate(attrs));
    }
  }
}

async function run(plugin: AdmissionPlugin, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    if (err instanceof StatusError || typeof (err as { toStatusError?: unknown } | null)?.toStatusError === 'function') {
      throw toStatusError(err);
    }
    const msg = err instanceof Error ? err.message : String(err);
    throw newInternalError(new Error(`admission plugin "${plugin.name}" failed: ${msg}`, { cause: err }));
  }
}
