import { type FieldError, fieldErrors, isDNS1123Subdomain } from '@kapi/apimachinery';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import type { ResourceObject } from '../resource-definition.ts';
import { humanDuration } from '../table/human-duration.ts';
import { OBJECT_META_NAME_DESCRIPTION } from '../table/table-convertor.ts';
import { checkMicroTimes, checkTimes } from './micro-time.ts';
import { objectReferenceSchema } from './object-reference.ts';

/** The core/v1 Event fields kubectl and client-go's recorder use; the rest of the type is pruned. */
const eventSchema = z.object({
  // A struct in Go, so a missing one is the empty reference (and fails the namespace rule), never "Required".
  involvedObject: objectReferenceSchema.default({}),
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
  series: z.object({ count: z.int().optional(), lastObservedTime: z.string().optional() }).optional(),
  related: objectReferenceSchema.optional(),
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
 * kube decodes firstTimestamp and lastTimestamp as metav1.Time (RFC 3339), eventTime and the series' lastObservedTime
 * as MicroTimes: other strings are a 400, so no event is stored that Go clients could not decode (one such event
 * would fail every `kubectl get events` of its namespace).
 */
function checkEventTimes(ev: Event): void {
  checkTimes('Event', 'v1', [ev.firstTimestamp, ev.lastTimestamp]);
  checkMicroTimes('Event', 'v1', [ev.eventTime, ev.series?.lastObservedTime]);
}

/** translateTimestampSince: a human age, or <unknown> without a time. */
function since(time: string | undefined, now: number): string {
  const t = time ? Date.parse(time) : Number.NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

/** kube's printEvent: first and last seen (falling back to eventTime and the series), and the count. */
function eventTimes(ev: Event, now: number): { first: string; last: string; count: number } {
  const first = ev.firstTimestamp ? since(ev.firstTimestamp, now) : since(ev.eventTime, now);
  let last = ev.lastTimestamp ? since(ev.lastTimestamp, now) : first;
  let count = ev.count ?? 0;
  if (ev.series) {
    last = since(ev.series.lastObservedTime, now);
    count = ev.series.count ?? 0;
  } else if (count === 0) count = 1;
  return { first, last, count };
}

/** `kind/name` of the involved object, the kind lower-cased. */
function eventTarget(ev: Event): string {
  const kind = (ev.involvedObject?.kind ?? '').toLowerCase();
  return ev.involvedObject?.name ? `${kind}/${ev.involvedObject.name}` : kind;
}

/** formatEventSource: component (or reporting controller), then host (or reporting instance). */
function eventSource(ev: Event): string {
  const component = ev.source?.component || ev.reportingComponent || '';
  const instance = ev.source?.host || ev.reportingInstance || '';
  return instance ? `${component}, ${instance}` : component;
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
  // kube's event printer (pkg/printers/internalversion printEvent): no leading Name, computed cells.
  nameColumn: false,
  printerColumns: [
    {
      name: 'Last Seen',
      type: 'string',
      jsonPath: '.lastTimestamp',
      description: 'Time when last event occurred',
      value: (o, now) => eventTimes(o as Event, now).last,
    },
    { name: 'Type', type: 'string', jsonPath: '.type', description: 'Type of this event.', value: (o) => (o as Event).type ?? '' },
    {
      name: 'Reason',
      type: 'string',
      jsonPath: '.reason',
      description: 'The reason this event was generated',
      value: (o) => (o as Event).reason ?? '',
    },
    {
      name: 'Object',
      type: 'string',
      jsonPath: '.involvedObject',
      description: 'The object this event is about',
      value: (o) => eventTarget(o as Event),
    },
    {
      name: 'Subobject',
      type: 'string',
      jsonPath: '.involvedObject.fieldPath',
      priority: 1,
      description: 'Subobject of the object',
      value: (o) => (o as Event).involvedObject?.fieldPath ?? '',
    },
    {
      name: 'Source',
      type: 'string',
      jsonPath: '.source',
      priority: 1,
      description: 'The component reporting this event',
      value: (o) => eventSource(o as Event),
    },
    {
      name: 'Message',
      type: 'string',
      jsonPath: '.message',
      description: 'A human-readable description of the status of this operation',
      value: (o) => ((o as Event).message ?? '').trim(),
    },
    {
      name: 'First Seen',
      type: 'string',
      jsonPath: '.firstTimestamp',
      priority: 1,
      description: 'Time when first event occurred',
      value: (o, now) => eventTimes(o as Event, now).first,
    },
    {
      name: 'Count',
      type: 'integer',
      jsonPath: '.count',
      priority: 1,
      description: 'The number of times this event has occurred',
      value: (o, now) => eventTimes(o as Event, now).count,
    },
    {
      name: 'Name',
      type: 'string',
      jsonPath: '.metadata.name',
      priority: 1,
      description: OBJECT_META_NAME_DESCRIPTION,
      value: (o) => o.metadata.name ?? '',
    },
  ],
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
    prepareForCreate: (_ctx, obj) => checkEventTimes(obj),
    prepareForUpdate: (_ctx, obj) => checkEventTimes(obj),
    validate: (_ctx, obj) => validateEvent(obj),
    // Core kinds warn of no finalizer names (only custom resources do).
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    validateUpdate: (_ctx, obj) => validateEvent(obj),
    allowCreateOnUpdate: () => true,
    allowUnconditionalUpdate: () => true,
  },
});
