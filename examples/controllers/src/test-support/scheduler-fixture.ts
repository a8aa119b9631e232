import { FakeClock } from '@kapi/apimachinery';
import { startTestServer, type TestServer } from '@kapi/testing';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { expect, vi } from 'vitest';
import { Scheduler, type SchedulerOptions } from '../scheduler.ts';
import { GROUP, type Machine, type Part, VERSION } from '../scheduler-types.ts';
import { CRDS } from './crds.ts';

/** How long a held request waits on the test server's clock (the test advances it); an odd figure no server timer uses. */
export const HOLD = 61_234;

/**
 * A FakeClock that says when a timer of `ms` is set: the test server's fault delays run on it, so a test knows the
 * request it holds has arrived.
 */
export class HoldingClock extends FakeClock {
  readonly #waiting = new Map<number, () => void>();

  override setTimeout(fn: () => void, ms: number) {
    this.#waiting.get(ms)?.();
    this.#waiting.delete(ms);
    return super.setTimeout(fn, ms);
  }

  /** Resolves when the next timer of `ms` is set. */
  timerSet(ms: number): Promise<void> {
    return new Promise((resolve) => this.#waiting.set(ms, resolve));
  }
}

export interface SchedulerFixture {
  kapi: TestServer<HoldingClock>;
  api: CustomObjectsApi;
  scheduler: Scheduler;
  /** What the scheduler logged. */
  log: string[];
  machine(name: string, cpu: number, unschedulable?: boolean): Promise<Machine>;
  part(name: string, cpu?: number): Promise<Part>;
  getPart(name: string): Promise<Part>;
  /** Waits until the Part is bound with phase Bound; resolves to its Machine. */
  bound(name: string): Promise<string>;
  /** Waits until the scheduler holds these Parts (of `default`) as unschedulable. */
  unschedulable(...names: string[]): Promise<void>;
  stop(): Promise<void>;
}

const namespace = 'default';

/** A test server with the Machine and Part CRDs and a started Scheduler against it. */
export async function startScheduler(options: Partial<SchedulerOptions> & { faultDelays?: 'clock' } = {}): Promise<SchedulerFixture> {
  const { faultDelays, ...schedulerOptions } = options;
  const kapi = await startTestServer({ crds: CRDS, clock: new HoldingClock(), ...(faultDelays ? { faultDelays } : {}) });
  const api = kapi.kubeConfig.makeApiClient(CustomObjectsApi);
  const log: string[] = [];
  const scheduler = new Scheduler({ kubeConfig: kapi.kubeConfig, log: (l) => log.push(l), ...schedulerOptions });
  await scheduler.start();
  const getPart = async (name: string) =>
    (await api.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'parts', namespace, name })) as Part;
  return {
    kapi,
    api,
    scheduler,
    log,
    machine: async (name, cpu, unschedulable) =>
      (await api.createClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'machines',
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'Machine',
          metadata: { name },
          spec: { cpu, ...(unschedulable ? { unschedulable } : {}) },
        },
      })) as Machine,
    part: async (name, cpu) =>
      (await api.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'parts',
        namespace,
        body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Part', metadata: { name }, spec: cpu === undefined ? {} : { cpu } },
      })) as Part,
    getPart,
    bound: async (name) => {
      let machine = '';
      await vi.waitFor(
        async () => {
          const part = await getPart(name);
          if (!part.spec?.machineName || part.status?.phase !== 'Bound') throw new Error(`${name} is not bound yet`);
          machine = part.spec.machineName;
        },
        { timeout: 5_000, interval: 2 },
      );
      return machine;
    },
    unschedulable: (...names) =>
      vi.waitFor(() => expect(scheduler.unschedulable()).toEqual(names.map((n) => `${namespace}/${n}`).sort()), {
        timeout: 5_000,
        interval: 2,
      }),
    stop: async () => {
      await scheduler.stop();
      await kapi.stop();
    },
  };
}
