import { type CRConverter, nopConverter } from './cr-converter.ts';
import { type ConversionTarget, DelegatingConverter } from './delegating-converter.ts';
import { type WebhookConversion, WebhookConverter, type WebhookConverterOptions } from './webhook-converter.ts';

/** The parts of an apiextensions.k8s.io/v1 CustomResourceDefinition that conversion reads. */
export interface ConversionCRD {
  metadata: { name: string };
  spec: ConversionTarget & {
    conversion?: { strategy: string; webhook?: WebhookConversion };
  };
}

/** A CRD's converter and what to call when the CRD changes or goes (a webhook keeps connections open). */
export interface CRDConverter {
  converter: DelegatingConverter;
  close(): void;
}

/**
 * kube's CRConverterFactory.NewConverter and NewDelegatingConverter: strategy None (the default) only rewrites
 * apiVersion; Webhook calls the CRD's conversion webhook. Throws for an unknown strategy or an unusable client config.
 */
export function converterForCRD(crd: ConversionCRD, options: WebhookConverterOptions = {}): CRDConverter {
  const conversion = crd.spec.conversion ?? { strategy: 'None' };
  let delegate: CRConverter;
  let close = () => {};
  if (conversion.strategy === 'None') delegate = nopConverter;
  else if (conversion.strategy === 'Webhook') {
    if (!conversion.webhook) throw new Error(`conversion strategy Webhook without webhook for CRD ${crd.metadata.name}`);
    const webhook = new WebhookConverter(crd.metadata.name, conversion.webhook, options);
    delegate = webhook;
    close = () => webhook.close();
  } else throw new Error(`unknown conversion strategy ${JSON.stringify(conversion.strategy)} for CRD ${crd.metadata.name}`);
  return { converter: new DelegatingConverter(crd.spec, delegate), close };
}
