import type { Clock } from '@kapi/apimachinery';
import { rfc3339Seconds, type Store } from '@kapi/registry';
import { namingStatusUpdate } from '../crd/naming.ts';
import type { CustomResourceDefinition } from '../crd/types.ts';
import type { CRDInformer } from './crd-informer.ts';

/**
 * kube's NamingConditionController: accepts a CRD's names (status.acceptedNames) when no other CRD of its group holds
 * them, and sets NamesAccepted (False with the conflict, as kube words it) and Established's initial state. A change of
 * one CRD requeues every CRD of its group, whose names may now be free or taken.
 */
export class NamingController {
  readonly #informer: CRDInformer;
  readonly #crds: () => Store;
  readonly #clock: Clock;

  constructor(options: { informer: CRDInformer; crds: () => Store; clock: Clock }) {
    this.#informer = options.informer;
    this.#crds = options.crds;
    this.#clock = options.clock;
  }

  /** The names to sync after a change of `crd`: it and every CRD of its group. */
  keysFor(crd: CustomResourceDefinition): string[] {
    return [
      crd.metadata.name ?? '',
      ...this.#informer
        .list()
        .filter((c) => c.spec.group === crd.spec.group && c.metadata.name !== crd.metadata.name)
        .map((c) => c.metadata.name ?? ''),
    ];
  }

  async sync(name: string): Promise<void> {
    const crd = this.#informer.get(name);
    if (!crd) return;
    const next = namingStatusUpdate(crd, this.#informer.list(), rfc3339Seconds(this.#clock.now()));
    if (next) await this.#crds().update({}, name, next, { subresource: 'status' });
  }
}
