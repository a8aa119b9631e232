import { AdmissionChain, admissionForbidden, admissionPlugin } from '@kapi/admission';
import type { Store } from '@kapi/registry';
import { type Fischer, WARDLE_GROUP } from './wardle.ts';

/** sample-apiserver's admission plugin's name. */
export const BAN_FLUNDER = 'BanFlunder';

/**
 * sample-apiserver's BanFlunder admission plugin: a Flunder may not be created with a name some Fischer lists in
 * `disallowedFlunders` (403, `this name may not be used, please change the resource name`). Fischers are read from
 * the server's watch cache (kube's plugin reads an informer's lister).
 */
export function banFlunder(fischers: () => Store<Fischer> | undefined): AdmissionChain {
  return new AdmissionChain([
    admissionPlugin({
      name: BAN_FLUNDER,
      operations: ['CREATE'],
      async admit(attrs) {
        if (attrs.kind.group !== WARDLE_GROUP || attrs.kind.kind !== 'Flunder') return;
        const store = fischers();
        if (!store) throw admissionForbidden(attrs, new Error('not yet ready to handle request'));
        const name = attrs.object?.metadata?.name ?? attrs.name;
        const list = await store.list({}, { resourceVersion: '0' });
        if (list.items.some((f) => (f.disallowedFlunders ?? []).includes(name)))
          throw admissionForbidden(attrs, new Error('this name may not be used, please change the resource name'));
      },
    }),
  ]);
}
