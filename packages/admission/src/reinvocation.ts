/**
 * kube's admission.ReinvocationContext: shared by the mutating plugins of one request. A plugin that saw a
 * later plugin change the object asks for a second pass (setShouldReinvoke); the chain then runs the mutating
 * plugins once more with isReinvoke() true, and each plugin decides what to re-run (webhooks re-call their
 * `reinvocationPolicy: IfNeeded` webhooks). `value`/`setValue` keep per-plugin state across the passes.
 */
export interface ReinvocationContext {
  /** True during the second pass. */
  isReinvoke(): boolean;
  shouldReinvoke(): boolean;
  /** A plugin asks for the second pass. */
  setShouldReinvoke(): void;
  /** Per-plugin state across passes (key it by the plugin's name). */
  value(key: string): unknown;
  setValue(key: string, v: unknown): void;
}

/** The chain's implementation (kube's admission.reinvocationContext). */
export class AdmissionReinvocationContext implements ReinvocationContext {
  #reinvoke = false;
  #shouldReinvoke = false;
  readonly #values = new Map<string, unknown>();

  isReinvoke(): boolean {
    return this.#reinvoke;
  }

  shouldReinvoke(): boolean {
    return this.#shouldReinvoke;
  }

  setShouldReinvoke(): void {
    this.#shouldReinvoke = true;
  }

  value(key: string): unknown {
    return this.#values.get(key);
  }

  setValue(key: string, v: unknown): void {
    this.#values.set(key, v);
  }

  /** Starts the second pass (kube's SetIsReinvoke); there is no third, whatever is asked during it. */
  setIsReinvoke(): void {
    this.#reinvoke = true;
  }
}
