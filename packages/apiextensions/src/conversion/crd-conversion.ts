import type { KubeObject } from '@kapi/apimachinery';
import type { ObjectConversion } from '@kapi/registry';
import { type ConversionCRD, converterForCRD } from './converter-factory.ts';
import type { WebhookConverterOptions } from './webhook-converter.ts';

/** A CRD's conversion as its ResourceDefinition's `conversion`, and what to call when the CRD changes or goes. */
export interface CRDObjectConversion extends ObjectConversion {
  /** Closes the kept-alive connections to the CRD's conversion webhook (nothing for strategy None). */
  close(): void;
}

/**
 * The registry ObjectConversion of a CustomResourceDefinition's spec.conversion: strategy None changes only
 * apiVersion (kube's nopConverter); Webhook sends a ConversionReview (the first of conversionReviewVersions kube
 * speaks, v1 or v1beta1) over HTTPS to the webhook's url, or to its service through `options.serviceResolver`,
 * verified with the caBundle. Converted objects are checked as kube checks them (count, group/version, kind, name,
 * namespace, uid; metadata restored but for valid labels and annotations). A list's items go in one review, as a
 * `<Kind>List`; a single object goes alone. Failures reject with kube's messages. Throws for an unknown strategy or
 * an unusable client config.
 */
export function crdConversion(crd: ConversionCRD, options: WebhookConverterOptions = {}): CRDObjectConversion {
  const { converter, close } = converterForCRD(crd, options);
  const group = crd.spec.group;
  return {
    close,
    async convert(objects, toVersion, list) {
      const target = `${group}/${toVersion}`;
      const first = objects[0];
      if (!first) return [];
      if (list) {
        const converted = await converter.convertList(
          { apiVersion: first.apiVersion ?? '', kind: `${first.kind ?? ''}List`, items: [...objects] },
          target,
        );
        return converted.items;
      }
      const out: KubeObject[] = [];
      for (const obj of objects) out.push(await converter.convertObject(obj, target));
      return out;
    },
  };
}
