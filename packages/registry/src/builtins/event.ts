import { type FieldError, fieldErrors, isDNS1123Subdomain } from '@kapi/apimachinery';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import type { ResourceObject } from '../resource-definition.ts';

/** core/v1 ObjectReference. */
const objectReference = z.object({
  kind: z.string().optional(),
  namespace: z.string().optional(),
  name: z.string().optional(),
  uid: z.string().optional(),
  apiVersion: z.string().optional(),
  resourceVersion: z.string().optional(),
  fieldPath: z.string().optional(),
});

/** The core/v1 Event fields kubectl and client-go's recorder use; the rest of the type is pruned. */
const eventSchema = z.object({
  // A struct in Go, so a missing one is the empty reference (and fails the namespace rule), never "Required".
  involvedObject: objectReference.default({}),
  reason: z.string().optional(),
  message: z.string().optional(),
  source: z.object({ component: z.string().optional(), host: z.string().optional() }).optional(),
  firstTimestamp: z.string().optional(),
  lastTimestamp: z.string().optional(),
  count: z.int().optional(),
  type: z.string().optional(),
  eventTime: z.string().optional(),
  action: z.string().optional(),
  reportingComponent: z.string().optional(),
  reportingInstance: z.string().optional(),
});

/** The stored object: apiVersion, kind, ObjectMeta and the schema's fields. */
export type Event = ResourceObject<typeof eventSchema>;

/**
 * legacyValidateEvent for a core/v1 event without eventTime: its namespace must be the involved object's, or, for
 * a cluster-scoped involved object, "default" (what old clients used) — here the event is always namespaced.
 */
function validateEvent(ev: Event): FieldError[] {
  const errs: FieldError[] = [];
  const ns = ev.metadata.namespace ?? '';
  const involved = (ev.involvedObject as { namespace?: unknown } | undefined)?.namespace;
  const involvedNs = typeof involved === 'string' ? involved : '';
  if (!ev.eventTime) {
    const ok = involvedNs === '' ? ns === '' || ns === 'default' : ns === involvedNs;
    if (!ok) errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
  }
  for (const msg of isDNS1123Subdomain(ns)) errs.push(fieldErrors.invalid('namespace', ns, msg));
  return errs;
}

/**
 * core/v1 Event with pkg/registry/core/event's strategy: create-on-update and unconditional updates allowed (event
 * recorders PUT and PATCH freely), no generation. Field selectors cover what `kubectl events` asks for.
 */
export const Event = defineResource({
  group: '',
  kind: 'Event',
  plural: 'events',
  shortNames: ['ev'],
  namespaced: true,
  versions: [{ name: 'v1', schema: eventSchema }],
  selectableFields: [
    { jsonPath: '.involvedObject.kind' },
    { jsonPath: '.involvedObject.namespace' },
    { jsonPath: '.involvedObject.name' },
    { jsonPath: '.involvedObject.uid' },
    { jsonPath: '.involvedObject.apiVersion' },
    { jsonPath: '.involvedObject.fieldPath' },
    { jsonPath: '.reason' },
    { jsonPath: '.type' },
  ],
  strategy: {
    prepareForCreate() {},
    prepareForUpdate() {},
    validate: (_ctx, obj) => validateEvent(obj),
    validateUpdate: (_ctx, obj) => validateEvent(obj),
    allowCreateOnUpdate: () => true,
    allowUnconditionalUpdate: () => true,
  },
});
