import { type KubeObject, parseGroupVersion } from '@kapi/apimachinery';
import { ConvertingStorage, type ResourceDefinition, type Store } from '@kapi/registry';
import type { GenericAPIServer } from '@kapi/server-core';
import type { Storage } from '@kapi/storage';
import type { CRDObjectConversion } from '../conversion/crd-conversion.ts';
import { isCRDConditionTrue } from '../crd/conditions.ts';
import type { CustomResourceDefinition } from '../crd/types.ts';
import type { CRDInformer } from './crd-informer.ts';
import { customResourceServingDefinition } from './custom-resource-definition-serving.ts';
import { terminatingCreateCheck } from './terminating-create-check.ts';

/** What is served for one CRD. */
interface Served {
  readonly definition: ResourceDefinition;
  /** What the serving was built from: a change means a new definition (kube's crdHandler compares spec and accepted names). */
  readonly basis: string;
  terminating: boolean;
  /** Closes the conversion webhook's connections. */
  readonly close: () => void;
}

/**
 * kube's crdHandler as a controller: serves the kind of every CRD whose names were accepted (NamesAccepted or
 * Established), through `server.addResource` — a Store behind its own watch cache, with the CRD's schemas, defaults
 * applied to what is read from storage — swaps it for a new one when the CRD's spec or accepted names change (its
 * watches end, as kube's), refuses creates while the CRD terminates, and stops serving when the CRD is gone.
 */
export class CRDServingController {
  readonly #informer: CRDInformer;
  readonly #server: () => GenericAPIServer;
  readonly #conversion: (crd: CustomResourceDefinition) => CRDObjectConversion | undefined;
  readonly #served = new Map<string, Served>();
  /** The basis each CRD could not be served from: not tried again until the CRD changes. */
  readonly #failed = new Map<string, string>();
  readonly #onError: (err: unknown, crd: string) => void;

  constructor(options: {
    informer: CRDInformer;
    server: () => GenericAPIServer;
    /** The kind's conversion between versions (undefined: None). */
    conversion: (crd: CustomResourceDefinition) => CRDObjectConversion | undefined;
    /** Told when a CRD cannot be served (kube answers its requests 500 "the server could not properly serve the CR schema"). */
    onError: (err: unknown, crd: string) => void;
  }) {
    this.#informer = options.informer;
    this.#server = options.server;
    this.#conversion = options.conversion;
    this.#onError = options.onError;
  }

  /** The Store serving a CRD's kind, while it is served. */
  store(crd: CustomResourceDefinition): Store | undefined {
    const served = this.#served.get(crd.metadata.name ?? '');
    return served && this.#server().store(`${served.definition.plural}.${served.definition.group}`);
  }

  async sync(name: string): Promise<void> {
    const crd = this.#informer.get(name);
    const served = this.#served.get(name);
    const serve = crd && (isCRDConditionTrue(crd, 'NamesAccepted') || isCRDConditionTrue(crd, 'Established'));
    if (!serve) {
      this.#failed.delete(name);
      if (served) {
        this.#served.delete(name);
        await this.#server().removeResource(served.definition);
        served.close();
      }
      return;
    }
    const terminating = isCRDConditionTrue(crd, 'Terminating');
    const basis = JSON.stringify([crd.metadata.uid, crd.spec, crd.status?.acceptedNames]);
    if (served?.basis === basis) {
      served.terminating = terminating;
      return;
    }
    if (this.#failed.get(name) === basis) return;
    this.#failed.delete(name);
    let definition: ResourceDefinition;
    let conversion: CRDObjectConversion | undefined;
    try {
      conversion = this.#conversion(crd);
      definition = customResourceServingDefinition(crd, conversion ? { conversion } : {});
    } catch (err) {
      conversion?.close();
      // A CRD that passed validation cannot fail here; if it does, retrying will not help.
      this.#onError(err, name);
      return;
    }
    const next: Served = { definition, basis, terminating, close: () => conversion?.close() };
    const options = {
      writeChecks: [terminatingCreateCheck(definition.group, definition.plural, () => next.terminating)],
      storage: (inner: Storage) => new ConvertingStorage(inner, { toStored: (obj) => obj, fromStored: defaultedOnRead(definition) }),
    };
    const server = this.#server();
    try {
      // The same group and plural: swapped in one step. Another (names changed): the old one goes, the new one comes.
      if (served && served.definition.plural === definition.plural && served.definition.group === definition.group)
        await server.replaceResource(definition, options);
      else {
        if (served) await server.removeResource(served.definition);
        await server.addResource(definition, options);
      }
    } catch (err) {
      // addResource waits out backend outages (its cache retries); what fails is permanent until the CRD changes —
      // a group and plural another server of the chain serves — so it is reported once, not retried.
      next.close();
      this.#failed.set(name, basis);
      this.#onError(err, name);
      return;
    }
    served?.close();
    this.#served.set(name, next);
  }

  /** Stops serving every CRD's kind (the server shuts down). */
  forget(): void {
    for (const served of this.#served.values()) served.close();
    this.#served.clear();
  }
}

/**
 * kube's storage decoder for a custom resource: an object read from storage gets its version's schema defaults (and
 * loses fields the schema prunes), so a default added to a CRD shows on objects stored before it.
 */
function defaultedOnRead(def: ResourceDefinition): (obj: KubeObject) => KubeObject {
  return (obj) => {
    const version = def.version(parseGroupVersion(obj.apiVersion ?? '').version);
    if (!version) return obj;
    const { apiVersion, kind, metadata, ...body } = obj;
    const decoded = version.schema.decode(body);
    return decoded ? ({ apiVersion, kind, metadata, ...decoded } as KubeObject) : obj;
  };
}
