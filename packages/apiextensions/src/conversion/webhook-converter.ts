import { randomUUID } from 'node:crypto';
import { formatAPIVersionKind, goQuote, type KubeObject } from '@kapi/apimachinery';
import type { ConversionReview } from './conversion-review.ts';
import type { CRConverter, UnstructuredList } from './cr-converter.ts';
import { goTypeOf } from './group-version-kind.ts';
import { HookClient, type HookClientOptions, type WebhookClientConfig } from './hook-client.ts';

/** apiextensions.k8s.io/v1 WebhookConversion. */
export interface WebhookConversion {
  clientConfig: WebhookClientConfig;
  /** ConversionReview versions the webhook accepts, preferred first; the first kube speaks (v1, v1beta1) is used. */
  conversionReviewVersions: readonly string[];
}

export interface WebhookConverterOptions extends HookClientOptions {
  /** A request uid per call; default crypto.randomUUID (tests pin it). */
  uid?: () => string;
}

/** unstructured.UnmarshalJSON of one converted object: a JSON object with a kind and an apiVersion. */
function convertedObject(raw: unknown): KubeObject {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`json: cannot unmarshal ${goTypeOf(raw)} into Go value of type map[string]interface {}`);
  const o = raw as Record<string, unknown>;
  if (typeof o.kind !== 'string' || o.kind === '') throw new Error(`Object 'Kind' is missing in '${JSON.stringify(raw)}'`);
  if (typeof o.apiVersion !== 'string' || o.apiVersion === '')
    throw new Error(`Object 'apiVersion' is missing in '${JSON.stringify(raw)}'`);
  return o as unknown as KubeObject;
}

/**
 * kube's getConvertedObjectsFromResponse: a v1 answer must be a v1 ConversionReview with the request's uid; either
 * version's result must be Success (else its message, or kube's words for the status).
 */
function convertedObjectsOf(reviewVersion: string, expectedUID: string, answer: unknown): unknown[] {
  const review = (typeof answer === 'object' && answer !== null ? answer : {}) as Partial<ConversionReview>;
  if (typeof review.kind !== 'string' || (review.kind as string) === '')
    throw new Error(`Object 'Kind' is missing in '${JSON.stringify(answer)}'`);
  if (reviewVersion === 'v1') {
    const want = 'apiextensions.k8s.io/v1, Kind=ConversionReview';
    const got = formatAPIVersionKind(review.apiVersion, review.kind);
    if (got !== want) throw new Error(`expected webhook response of ${want}, got ${got}`);
  }
  const response = review.response;
  if (!response || typeof response !== 'object') throw new Error('no response provided');
  if (reviewVersion === 'v1' && response.uid !== expectedUID)
    throw new Error(`expected response.uid=${goQuote(expectedUID)}, got ${goQuote(String(response.uid ?? ''))}`);
  const result = response.result ?? {};
  if (result.status !== 'Success') {
    if (result.message) throw new Error(result.message);
    throw new Error(`response.result.status was '${result.status ?? ''}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

/**
 * kube's webhookConverter: sends the items in one ConversionReview (the first of the CRD's conversionReviewVersions kube
 * speaks) to the CRD's webhook and returns what it converted. The DelegatingConverter checks the objects themselves.
 */
export class WebhookConverter implements CRConverter {
  readonly #client: HookClient;
  readonly #reviewVersions: readonly string[];
  readonly #uid: () => string;

  /** `crdName` names the webhook in errors (`conversion_webhook_for_<crdName>`). Throws ErrCallingWebhook. */
  constructor(crdName: string, conversion: WebhookConversion, options: WebhookConverterOptions = {}) {
    this.#client = new HookClient(`conversion_webhook_for_${crdName}`, conversion.clientConfig, options);
    this.#reviewVersions = [...conversion.conversionReviewVersions];
    this.#uid = options.uid ?? randomUUID;
  }

  /** Closes the kept-alive connections to the webhook. */
  close(): void {
    this.#client.close();
  }

  async convert(list: UnstructuredList, targetGV: string): Promise<UnstructuredList> {
    const reviewVersion = this.#reviewVersions.find((v) => v === 'v1' || v === 'v1beta1');
    if (!reviewVersion) throw new Error('no supported conversion review versions');
    const uid = this.#uid();
    const review: ConversionReview = {
      apiVersion: `apiextensions.k8s.io/${reviewVersion}`,
      kind: 'ConversionReview',
      request: { uid, desiredAPIVersion: targetGV, objects: list.items },
    };
    const failed = (err: unknown) =>
      new Error(`conversion webhook for ${formatAPIVersionKind(list.apiVersion, list.kind)} failed: ${(err as Error).message}`);
    let answer: unknown;
    try {
      answer = await this.#client.post(review);
    } catch (err) {
      throw failed(err);
    }
    let converted: unknown[];
    try {
      converted = convertedObjectsOf(reviewVersion, uid, answer);
    } catch (err) {
      throw failed(err);
    }
    return { items: converted.map(convertedObject) };
  }
}
