import { type FieldError, fieldErrors, isDNS1123Subdomain, isQualifiedName, type KubeObject } from '@kapi/apimachinery';
import { jsonEqual } from '@kapi/storage';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import type { PrinterColumn, ResourceObject } from '../resource-definition.ts';
import { Event as CoreEvent } from './event.ts';
import { checkMicroTimes, checkTimes } from './micro-time.ts';
import { objectReferenceSchema } from './object-reference.ts';

/** events.k8s.io/v1 Event: core/v1 Event's fields under their newer names (the deprecated ones kept for old writers). */
const eventSchema = z.object({
  // MicroTimes, kept as sent; a Go zero time is null on the wire.
  eventTime: z.string().nullable().optional(),
  series: z.object({ count: z.int().optional(), lastObservedTime: z.string().optional() }).optional(),
  reportingController: z.string().optional(),
  reportingInstance: z.string().optional(),
  action: z.string().optional(),
  reason: z.string().optional(),
  regarding: objectReferenceSchema.optional(),
  related: objectReferenceSchema.optional(),
  note: z.string().optional(),
  type: z.string().optional(),
  deprecatedSource: z.object({ component: z.string().optional(), host: z.string().optional() }).optional(),
  deprecatedFirstTimestamp: z.string().nullable().optional(),
  deprecatedLastTimestamp: z.string().nullable().optional(),
  deprecatedCount: z.int().optional(),
});

/** The object as served by events.k8s.io/v1. */
export type EventsV1Event = ResourceObject<typeof eventSchema>;

type Fields = Record<string, unknown>;

/** Drops unset fields (undefined, and the null of a zero time), as omitempty does on the other side. */
function present(fields: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null));
}

/** Convert_v1_Event_To_core_Event (pkg/apis/events/v1): regarding is involvedObject, note is message, and so on. */
export function eventsV1ToCore(ev: KubeObject): KubeObject {
  const e = ev as Fields;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: ev.metadata,
    ...present({
      involvedObject: e.regarding ?? {},
      reason: e.reason,
      message: e.note,
      source: e.deprecatedSource,
      firstTimestamp: e.deprecatedFirstTimestamp,
      lastTimestamp: e.deprecatedLastTimestamp,
      count: e.deprecatedCount,
      type: e.type,
      eventTime: e.eventTime,
      series: e.series,
      action: e.action,
      related: e.related,
      reportingComponent: e.reportingController,
      reportingInstance: e.reportingInstance,
    }),
  } as KubeObject;
}

/** Convert_core_Event_To_v1_Event: the stored core/v1 Event as events.k8s.io/v1 serves it. */
export function coreToEventsV1(ev: KubeObject): KubeObject {
  const e = ev as Fields;
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: ev.metadata,
    ...present({
      eventTime: e.eventTime,
      series: e.series,
      reportingController: e.reportingComponent,
      reportingInstance: e.reportingInstance,
      action: e.action,
      reason: e.reason,
      regarding: e.involvedObject,
      related: e.related,
      note: e.message,
      type: e.type,
      deprecatedSource: e.source,
      deprecatedFirstTimestamp: e.firstTimestamp,
      deprecatedLastTimestamp: e.lastTimestamp,
      deprecatedCount: e.count,
    }),
  } as KubeObject;
}

/** The core fields kube validates (it validates the internal object: the paths name core/v1's fields). */
interface CoreFields {
  metadata: KubeObject['metadata'];
  involvedObject?: { namespace?: string };
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  type?: string;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  action?: string;
  reportingComponent?: string;
  reportingInstance?: string;
}

const core = (ev: EventsV1Event): CoreFields => eventsV1ToCore(ev) as unknown as CoreFields;

/** kube's ReportingInstanceLengthLimit, ActionLengthLimit, ReasonLengthLimit and NoteLengthLimit. */
const LIMITS = { reportingInstance: 128, action: 128, reason: 128, message: 1024 } as const;

function tooLong(field: keyof typeof LIMITS, value: string | undefined): FieldError[] {
  const limit = LIMITS[field];
  // Go's len counts bytes.
  return Buffer.byteLength(value ?? '') > limit ? [fieldErrors.invalid(field, '', `can have at most ${limit} characters`)] : [];
}

/** legacyValidateEvent (pkg/apis/core/validation/events.go): what every event, of either API, must satisfy. */
function legacyValidateEvent(e: CoreFields): FieldError[] {
  const errs: FieldError[] = [];
  const ns = e.metadata.namespace ?? '';
  const involvedNs = e.involvedObject?.namespace ?? '';
  const mismatch = () => fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace');
  if (!e.eventTime) {
    if (involvedNs === '' ? ns !== '' && ns !== 'default' : ns !== involvedNs) errs.push(mismatch());
  } else {
    if (involvedNs === '' && ns !== 'default' && ns !== 'kube-system') errs.push(mismatch());
    const controller = e.reportingComponent ?? '';
    if (!controller) errs.push(fieldErrors.required('reportingController', ''));
    for (const msg of isQualifiedName(controller)) errs.push(fieldErrors.invalid('reportingController', controller, msg));
    if (!e.reportingInstance) errs.push(fieldErrors.required('reportingInstance', ''));
    errs.push(...tooLong('reportingInstance', e.reportingInstance));
    if (!e.action) errs.push(fieldErrors.required('action', ''));
    errs.push(...tooLong('action', e.action));
    if (!e.reason) errs.push(fieldErrors.required('reason', ''));
    errs.push(...tooLong('reason', e.reason));
    errs.push(...tooLong('message', e.message));
  }
  for (const msg of isDNS1123Subdomain(ns)) errs.push(fieldErrors.invalid('namespace', ns, msg));
  return errs;
}

function validateSeries(e: CoreFields): FieldError[] {
  if (!e.series) return [];
  const errs: FieldError[] = [];
  if ((e.series.count ?? 0) < 2) errs.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
  if (!e.series.lastObservedTime) errs.push(fieldErrors.required('series.lastObservedTime', ''));
  return errs;
}

/** ValidateEventCreate for events.k8s.io/v1: the legacy rules, then the strict ones of the new API. */
function validateCreate(ev: EventsV1Event): FieldError[] {
  const e = core(ev);
  const errs = [...legacyValidateEvent(e), ...validateSeries(e)];
  if (!e.eventTime) errs.push(fieldErrors.required('eventTime', ''));
  if (e.type !== 'Normal' && e.type !== 'Warning') errs.push(fieldErrors.invalid('type', '', `has invalid value: ${e.type ?? ''}`));
  if (e.firstTimestamp) errs.push(fieldErrors.invalid('firstTimestamp', '', 'needs to be unset'));
  if (e.lastTimestamp) errs.push(fieldErrors.invalid('lastTimestamp', '', 'needs to be unset'));
  if (e.count) errs.push(fieldErrors.invalid('count', '', 'needs to be unset'));
  if (e.source?.component || e.source?.host) errs.push(fieldErrors.invalid('source', '', 'needs to be unset'));
  return errs;
}

/** The fields ValidateEventUpdate keeps immutable, in its order (reason is checked twice there; once is enough here). */
const IMMUTABLE = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  'action',
  'related',
  'reportingComponent',
  'reportingInstance',
] as const;

/** The path kube names each immutable field by (ReportingController's Go name, not its JSON one). */
const immutablePath = (f: (typeof IMMUTABLE)[number]): string => (f === 'reportingComponent' ? 'reportingController' : f);

/** ValidateEventUpdate for events.k8s.io/v1: a changed series is checked again, everything else is immutable. */
function validateUpdate(ev: EventsV1Event, oldEv: EventsV1Event): FieldError[] {
  const e = core(ev);
  const old = core(oldEv);
  const errs = legacyValidateEvent(e);
  if (!jsonEqual(e.series, old.series)) errs.push(...validateSeries(e));
  for (const f of IMMUTABLE) {
    const now = (e as unknown as Fields)[f];
    if (!jsonEqual(now, (old as unknown as Fields)[f])) errs.push(fieldErrors.invalid(immutablePath(f), now ?? null, 'field is immutable'));
  }
  return errs;
}

/** kube reads eventTime and the series' lastObservedTime as MicroTimes, the deprecated timestamps as Times: other forms are a 400. */
const checkEventTimes = (ev: EventsV1Event): void => {
  checkMicroTimes('Event', 'v1', [ev.eventTime, ev.series?.lastObservedTime]);
  checkTimes('Event', 'v1', [ev.deprecatedFirstTimestamp, ev.deprecatedLastTimestamp]);
};

/** kube prints both APIs' events with one printer, on the internal object: core's columns, on the core form. */
const columns: PrinterColumn[] = CoreEvent.printerColumns.map((c) => {
  const value = c.value;
  return { ...c, ...(value ? { value: (o: KubeObject, now: number) => value(eventsV1ToCore(o), now) } : {}) };
});

/**
 * events.k8s.io/v1 Event, stored with core/v1 Events (kube's cohabitating resources: one storage, two APIs), so an
 * event written through either API is read through both. Its strategy is core events' (create-on-update and
 * unconditional updates allowed) with the strict validation kube applies to writes through events.k8s.io/v1.
 */
export const EventsV1Event = defineResource({
  group: 'events.k8s.io',
  kind: 'Event',
  plural: 'events',
  shortNames: ['ev'],
  namespaced: true,
  versions: [{ name: 'v1', schema: eventSchema }],
  nameColumn: false,
  printerColumns: columns,
  storedWith: { group: '', plural: 'events', toStored: eventsV1ToCore, fromStored: coreToEventsV1 },
  strategy: {
    prepareForCreate: (_ctx, obj) => checkEventTimes(obj),
    prepareForUpdate: (_ctx, obj) => checkEventTimes(obj),
    validate: (_ctx, obj) => validateCreate(obj),
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    validateUpdate: (_ctx, obj, old) => validateUpdate(obj, old),
    allowCreateOnUpdate: () => true,
    allowUnconditionalUpdate: () => true,
  },
});
