import type { Clock } from '@kapi/apimachinery';
import { rfc3339Seconds, type Store } from '@kapi/registry';
import { establishingStatusUpdate } from '../crd/naming.ts';
import type { CRDInformer } from './crd-informer.ts';

/**
 * kube's EstablishingController: a CRD whose names were accepted becomes Established (InitialNamesAccepted), which
 * puts its kind into discovery. At once, as kube does with one API server (with several it waits 5 s, so that each has
 * seen the names before clients are told).
 */
export class EstablishingController {
  readonly #informer: CRDInformer;
  readonly #crds: () => Store;
  readonly #clock: Clock;

  constructor(options: { informer: CRDInformer; crds: () => Store; clock: Clock }) {
    this.#informer = options.informer;
    this.#crds = options.crds;
    this.#clock = options.clock;
  }

  async sync(name: string): Promise<void> {
    const crd = this.#informer.get(name);
    if (!crd) return;
    const next = establishingStatusUpdate(crd, rfc3339Seconds(this.#clock.now()));
    if (next) await this.#crds().update({}, name, next, { subresource: 'status' });
  }
}
