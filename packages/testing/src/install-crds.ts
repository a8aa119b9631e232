import type { KubeObject } from '@kapi/apimachinery';
import { decodeYAML, type GenericAPIServer } from '@kapi/server-core';

/** A CRD manifest as an object, or YAML/JSON text (several documents separated by `---` are several CRDs). */
export type CRDInput = object | string;

interface CRDManifest extends KubeObject {
  spec?: { group?: string; names?: { plural?: string }; versions?: { name: string; served?: boolean }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

const CRDS = 'customresourcedefinitions.apiextensions.k8s.io';

/** The manifests of `inputs`, YAML texts split into their documents (empty documents skipped). */
export function crdManifests(inputs: readonly CRDInput[]): CRDManifest[] {
  return inputs.flatMap((input) =>
    typeof input === 'string'
      ? input
          .split(/^---[ \t]*$/m)
          .filter((doc) => doc.replace(/#.*$/gm, '').trim() !== '')
          .map((doc) => decodeYAML(doc) as CRDManifest)
      : [input as CRDManifest],
  );
}

/**
 * Creates each CRD through the CRD kind's Store (the API's own registry: validation, defaulting, names) and waits until
 * every one is Established and its served versions are routed by `server` — what a client needs before it lists them.
 */
export async function installCRDs(server: GenericAPIServer, inputs: readonly CRDInput[], timeoutMs = 10_000): Promise<void> {
  const manifests = crdManifests(inputs);
  if (manifests.length === 0) return;
  const store = server.store(CRDS);
  if (!store) throw new Error(`${CRDS} is not served`);
  const created = await Promise.all(manifests.map(async (m) => (await store.create({}, m)).object as CRDManifest));
  const deadline = Date.now() + timeoutMs;
  for (const crd of created) {
    const name = crd.metadata.name as string;
    for (;;) {
      const current = (await store.get({}, name)) as CRDManifest;
      if (established(current) && routed(server, current)) break;
      if (Date.now() > deadline) throw new Error(`CustomResourceDefinition ${name} was not Established and served within ${timeoutMs} ms`);
      // Real time, not the test clock: the CRD controllers run on the event loop.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
}

function established(crd: CRDManifest): boolean {
  return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
}

/** Every served version of the CRD's kind is among the server's definitions. */
function routed(server: GenericAPIServer, crd: CRDManifest): boolean {
  const group = crd.spec?.group;
  const plural = crd.spec?.names?.plural;
  const def = server.definitions().find((d) => d.group === group && d.plural === plural);
  if (!def) return false;
  const versions = new Set(def.versions.map((v) => v.name));
  return (crd.spec?.versions ?? []).every((v) => v.served === false || versions.has(v.name));
}
