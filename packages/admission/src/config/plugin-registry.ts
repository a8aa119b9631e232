import { AdmissionChain } from '../chain.ts';
import type { AdmissionMetrics } from '../metrics.ts';
import type { AdmissionPlugin } from '../plugin.ts';
import { type AdmissionConfiguration, pluginConfigFor, readAdmissionConfiguration } from './admission-configuration.ts';
import { ALL_ORDERED_PLUGINS, DEFAULT_ON_PLUGINS, FIRST_OF_THE_END_PLUGINS } from './plugin-names.ts';

/**
 * Makes a plugin from its configuration in the AdmissionConfiguration (inline `configuration`, or its `path` file
 * parsed; undefined when there is none), kube's admission.Factory. What else it needs (stores, caches, an
 * authorizer: kube's plugin initializers) the factory closes over. A throw fails building the chain.
 */
export type AdmissionPluginFactory = (config: unknown) => AdmissionPlugin;

export interface BuildChainOptions {
  /** kube's --enable-admission-plugins: plugins on in addition to the default ones (order does not matter). */
  readonly enable?: readonly string[];
  /** kube's --disable-admission-plugins: default plugins turned off (order does not matter). */
  readonly disable?: readonly string[];
  /** The plugins on unless disabled. Default DEFAULT_ON_PLUGINS (the registered ones among them). */
  readonly defaultOn?: readonly string[];
  /**
   * The order plugins run in (kube's RecommendedPluginOrder), which must hold exactly the registered plugins (kube's
   * check). Default: kube's AllOrderedPlugins (the registered ones), with plugins of other names in registration
   * order just before MutatingAdmissionPolicy, where kube puts new plugins (webhooks, quota and deny stay last).
   */
  readonly order?: readonly string[];
  /** kube's --admission-control-config-file, read (readAdmissionConfiguration). */
  readonly config?: AdmissionConfiguration;
  /** kube's --admission-control-config-file, to read (when `config` is not given). */
  readonly configFile?: string;
  /** The chain's step and controller metrics. */
  readonly metrics?: AdmissionMetrics;
}

/**
 * Admission plugins by name (kube's admission.Plugins) and the chain kube-apiserver builds from them: the plugins
 * enabled by flags, in the recommended order, each made by its factory with its configuration.
 *
 * @example
 * const plugins = new AdmissionPluginRegistry();
 * plugins.register('NamespaceLifecycle', () => namespaceLifecycle);
 * plugins.register('AlwaysDeny', () => denyAll());
 * const chain = plugins.buildChain({ enable: ['AlwaysDeny'], config: readAdmissionConfiguration(file) });
 */
export class AdmissionPluginRegistry {
  readonly #factories = new Map<string, AdmissionPluginFactory>();

  /** Registers a plugin's factory; a name registered twice is an error (kube exits). */
  register(name: string, factory: AdmissionPluginFactory): void {
    if (this.#factories.has(name)) throw new Error(`Admission plugin "${name}" was registered twice`);
    this.#factories.set(name, factory);
  }

  /** The registered names, sorted (kube's Registered). */
  registered(): string[] {
    return [...this.#factories.keys()].sort();
  }

  has(name: string): boolean {
    return this.#factories.has(name);
  }

  /** The order plugins run in by default: kube's, with plugins of other names before the ones kube keeps last. */
  defaultOrder(): string[] {
    const known = new Set(ALL_ORDERED_PLUGINS);
    const others = [...this.#factories.keys()].filter((n) => !known.has(n));
    const order: string[] = [];
    for (const name of ALL_ORDERED_PLUGINS) {
      if (name === FIRST_OF_THE_END_PLUGINS) order.push(...others);
      if (this.#factories.has(name)) order.push(name);
    }
    return order;
  }

  /**
   * The names of the enabled plugins in order (kube's AdmissionOptions Validate and enabledPluginNames): enabled =
   * defaultOn ∪ enable, less disable; kube's errors for an unknown name and for a name both enabled and disabled.
   */
  enabledPluginNames(options: Omit<BuildChainOptions, 'config' | 'configFile' | 'metrics'> = {}): string[] {
    const enable = options.enable ?? [];
    const disable = options.disable ?? [];
    const errors: string[] = [];
    for (const name of enable) if (!this.has(name)) errors.push(`enable-admission-plugins plugin "${name}" is unknown`);
    for (const name of disable) if (!this.has(name)) errors.push(`disable-admission-plugins plugin "${name}" is unknown`);
    const overlap = [...new Set(enable.filter((n) => disable.includes(n)))].sort();
    if (overlap.length) errors.push(`[${overlap.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
    const order = options.order ?? this.defaultOrder();
    if (options.order) {
      const inOrder = new Set(order);
      const unregistered = [...inOrder].filter((n) => !this.has(n)).sort();
      if (unregistered.length) errors.push(`plugins [${unregistered.join(' ')}] in RecommendedPluginOrder are not registered`);
      const missing = this.registered().filter((n) => !inOrder.has(n));
      if (missing.length) errors.push(`plugins [${missing.join(' ')}] registered are not in RecommendedPluginOrder`);
    }
    if (options.defaultOn) {
      for (const name of options.defaultOn) if (!this.has(name)) errors.push(`unknown admission plugin: ${name}`);
    }
    if (errors.length) throw new Error(aggregate(errors));
    const on = new Set([...(options.defaultOn ?? DEFAULT_ON_PLUGINS), ...enable]);
    for (const name of disable) on.delete(name);
    return order.filter((n) => on.has(n));
  }

  /**
   * Makes the plugins called `names`, in that order, each from its factory with its configuration in `config`
   * (kube's NewFromPlugins): "unknown admission plugin" for a name not registered, "couldn't init admission plugin"
   * when its factory throws.
   */
  newFromPlugins(names: readonly string[], config?: AdmissionConfiguration): AdmissionPlugin[] {
    return names.map((name) => {
      const factory = this.#factories.get(name);
      if (!factory) throw new Error(`unknown admission plugin: ${name}`);
      const pluginConfig = pluginConfigFor(config, name);
      try {
        return factory(pluginConfig);
      } catch (err) {
        throw new Error(`couldn't init admission plugin "${name}": ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    });
  }

  /** The chain kube-apiserver builds: the enabled plugins, ordered, configured, with the step and controller metrics. */
  buildChain(options: BuildChainOptions = {}): AdmissionChain {
    const names = this.enabledPluginNames(options);
    let config = options.config;
    if (!config && options.configFile) {
      try {
        config = readAdmissionConfiguration(options.configFile);
      } catch (err) {
        throw new Error(`failed to read plugin config: ${(err as Error).message}`, { cause: err });
      }
    }
    const plugins = this.newFromPlugins(names, config);
    return new AdmissionChain(plugins, options.metrics ? { metrics: options.metrics } : {});
  }
}

/** utilerrors.NewAggregate's text: the one error, or all of them in brackets. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? (errors[0] as string) : `[${errors.join(', ')}]`;
}
