import { type Clock, realClock } from '@kapi/apimachinery';
import {
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  type ListPromise,
  ListWatch,
  type ObjectCache,
  Watch,
} from '@kubernetes/client-node';

/** What the scheduler needs of an informer: client-node's Informer and its cache. */
export type SchedulerInformer<T extends KubernetesObject> = Informer<T> & ObjectCache<T>;

/** Makes an informer for `path` listing with `list`; the scheduler takes one so the package's shared helper can replace this one. */
export type InformerFactory = <T extends KubernetesObject>(path: string, list: ListPromise<T>) => SchedulerInformer<T>;

export interface ListWatchFactoryOptions {
  /** Times the restart after an error. Default the real clock. */
  clock?: Clock;
  /** The first restart delay after an error, doubled per failure up to 30 s. Default 50 ms. */
  restartDelayMs?: number;
  /** Told of the errors that stopped the informer before it restarts. */
  onError?: (err: unknown) => void;
}

/**
 * client-node's ListWatch (what makeInformer returns). It handles a watch's end itself: a clean end watches again from
 * the last resourceVersion, kube's 410 Expired relists. Any other error (a failed list, a reset connection) stops it
 * and only calls the `error` handlers — client-go's Reflector would retry — so this restarts it after a backoff.
 */
export function listWatchInformers(kubeConfig: KubeConfig, options: ListWatchFactoryOptions = {}): InformerFactory {
  const clock = options.clock ?? realClock;
  const base = options.restartDelayMs ?? 50;
  return <T extends KubernetesObject>(path: string, list: ListPromise<T>) => {
    const informer = new ListWatch<T>(path, new Watch(kubeConfig), list, false);
    let failures = 0;
    let stopped = false;
    informer.on('add', () => {
      failures = 0;
    });
    informer.on('error', (err) => {
      options.onError?.(err);
      const delay = Math.min(30_000, base * 2 ** failures++);
      const timer = clock.setTimeout(() => {
        if (!stopped) start().catch(() => {});
      }, delay);
      timer.unref?.();
    });
    const start = informer.start.bind(informer);
    const stop = informer.stop.bind(informer);
    informer.start = () => {
      stopped = false;
      return start();
    };
    informer.stop = async () => {
      stopped = true;
      await stop();
    };
    return informer;
  };
}
