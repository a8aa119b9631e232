import { type KubeObject, parseGroupVersion } from '@kapi/apimachinery';
import { convertObject } from './convert.ts';
import type { ResourceDefinition } from './resource-definition.ts';

/**
 * The answer a conversion webhook gives a CRD's ConversionReview, computed with a `defineResource` kind's own
 * TypeScript converters (through the storage version, as `convertObject`): the way a kind whose versions convert in
 * TypeScript keeps converting once its manifest (`customResourceDefinitionOf(def, { conversion: { webhook } })`) is
 * installed in a real cluster. Serve it over HTTPS from any server: POST body in, this JSON out. A request that is not a
 * ConversionReview for this kind gets a Failure result saying why, never an exception.
 */
export function answerConversionReview(def: ResourceDefinition, review: unknown): object {
  const r = (typeof review === 'object' && review !== null ? review : {}) as Record<string, unknown>;
  const apiVersion = r.apiVersion === 'apiextensions.k8s.io/v1beta1' ? 'apiextensions.k8s.io/v1beta1' : 'apiextensions.k8s.io/v1';
  const request = (typeof r.request === 'object' && r.request !== null ? r.request : {}) as Record<string, unknown>;
  const uid = typeof request.uid === 'string' ? request.uid : '';
  const answer = (response: object) => ({ apiVersion, kind: 'ConversionReview', response: { uid, ...response } });
  const failure = (message: string) => answer({ result: { status: 'Failure', message } });
  if (r.kind !== 'ConversionReview' || typeof r.request !== 'object' || r.request === null)
    return failure('expected a ConversionReview with a request');
  const desired = typeof request.desiredAPIVersion === 'string' ? request.desiredAPIVersion : '';
  let version: string;
  try {
    const gv = parseGroupVersion(desired);
    if (gv.group !== def.group || !def.version(gv.version)) throw new Error();
    version = gv.version;
  } catch {
    return failure(`${def.plural}.${def.group} has no version ${JSON.stringify(desired)}`);
  }
  if (!Array.isArray(request.objects)) return failure('request.objects must be a list');
  try {
    const convertedObjects = request.objects.map((o: KubeObject) => convertObject(def, o, version));
    return answer({ convertedObjects, result: { status: 'Success' } });
  } catch (err) {
    return failure((err as Error).message);
  }
}
