/**
 * Whether an etcd of `version` answers a WatchProgressRequest in order with the events, after every event up to the
 * revision it reports. etcd 3.4 before 3.4.31 and 3.5 before 3.5.13 may send the answer ahead of events still queued
 * (etcd-io/etcd#15220); kube-apiserver serves consistent reads from its watch cache only over fixed versions.
 */
export function answersProgressInOrder(version: string): boolean {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}

/** How long after a failed check (a member not answering) the next one may start. */
const RETRY_MS = 1000;

/**
 * Finds out once whether every etcd member answers progress requests in order (kube-apiserver's etcd feature-support
 * checker): asks each endpoint's version at start, and again after a failure when next consulted. Until every member
 * has answered, the answer is false, the safe side: a cache then reads consistent reads from etcd.
 */
export class ProgressRequestSupport {
  readonly #endpoints: readonly string[];
  readonly #versionOf: (endpoint: string) => Promise<string>;
  #known: boolean | undefined;
  #checking: Promise<boolean> | undefined;
  #failedAt = Number.NEGATIVE_INFINITY;

  constructor(endpoints: readonly string[], versionOf: (endpoint: string) => Promise<string>) {
    this.#endpoints = endpoints;
    this.#versionOf = versionOf;
    void this.check();
  }

  /** What is known now: true only once every member was found to answer in order. */
  get supported(): boolean {
    if (this.#known === undefined && !this.#checking && Date.now() - this.#failedAt >= RETRY_MS) void this.check();
    return this.#known ?? false;
  }

  /** Resolves with the answer once every member's version is known (false if one could not be asked this time). */
  check(): Promise<boolean> {
    if (this.#known !== undefined) return Promise.resolve(this.#known);
    this.#checking ??= Promise.all(this.#endpoints.map((e) => this.#versionOf(e))).then(
      (versions) => {
        this.#known = versions.every(answersProgressInOrder);
        this.#checking = undefined;
        return this.#known;
      },
      () => {
        this.#failedAt = Date.now();
        this.#checking = undefined;
        return false;
      },
    );
    return this.#checking;
  }
}
