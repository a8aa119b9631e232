import { FakeClock, StatusError } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.ts';
import { StoreKeys } from '../store/store-keys.ts';
import { tableConvertorFor } from '../table/table-convertor.ts';
import { backends } from '../test-support/backends.ts';
import { Event } from './event.ts';
import { coreToEventsV1, EventsV1Event, eventsV1ToCore } from './events-k8s-io-event.ts';

const ctx = { namespace: 'ns' };

/** A valid events.k8s.io/v1 event, as client-go's new recorder writes one. */
const newEvent = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name, namespace: 'ns' },
  eventTime: '2026-01-02T03:04:05.123456Z',
  reportingController: 'example.com/widget-controller',
  reportingInstance: 'widget-controller-0',
  action: 'Scaling',
  reason: 'ScaledUp',
  regarding: { kind: 'Widget', namespace: 'ns', name: 'w', apiVersion: 'example.com/v1' },
  note: 'scaled up to 3',
  type: 'Normal',
  ...extra,
});

async function invalid(p: Promise<unknown>): Promise<StatusError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  expect((err as StatusError).code).toBe(422);
  return err as StatusError;
}

describe('events.k8s.io/v1 Event conversion', () => {
  it('maps the renamed fields both ways, as kube converts them', () => {
    const v1 = newEvent('e', {
      deprecatedSource: { component: 'c', host: 'h' },
      deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
      deprecatedLastTimestamp: '2026-01-01T00:00:01Z',
      deprecatedCount: 4,
      series: { count: 2, lastObservedTime: '2026-01-02T03:04:06.000000Z' },
      related: { kind: 'Pod', name: 'p' },
    });
    const core = eventsV1ToCore(v1);
    expect(core).toMatchObject({
      apiVersion: 'v1',
      involvedObject: v1.regarding,
      message: 'scaled up to 3',
      source: { component: 'c', host: 'h' },
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:00:01Z',
      count: 4,
      reportingComponent: 'example.com/widget-controller',
      reportingInstance: 'widget-controller-0',
    });
    expect(coreToEventsV1(core)).toEqual(v1);
  });
});

describe.each(backends)('events.k8s.io/v1 Event over %s', (_label, wrap) => {
  let memory: MemoryStorage;
  let close: () => Promise<void>;
  let events: Store;
  let coreEvents: Store;
  beforeEach(async () => {
    memory = new MemoryStorage({ compaction: false });
    // One watch cache over core events' keys, as the server has: the events.k8s.io Store reads core objects from it.
    const prefix = new StoreKeys(EventsV1Event).resourcePrefix;
    expect(prefix).toBe(new StoreKeys(Event).resourcePrefix);
    const backend = await wrap(memory, prefix);
    close = backend.close;
    const clock = new FakeClock();
    events = new Store(EventsV1Event, { storage: backend.storage, clock });
    coreEvents = new Store(Event, { storage: memory, clock });
  });
  afterEach(async () => {
    await close();
    await memory.close();
  });

  it('stores an events.k8s.io event as a core event, visible through both APIs', async () => {
    const { object } = await events.create(ctx, newEvent('e1'));
    expect(object.apiVersion).toBe('events.k8s.io/v1');
    expect(object).toMatchObject({ note: 'scaled up to 3', regarding: { name: 'w' } });
    const stored = await memory.get('/registry/core/events/ns/e1');
    expect(stored).toMatchObject({ apiVersion: 'v1', kind: 'Event', message: 'scaled up to 3', involvedObject: { name: 'w' } });
    const asCore = await coreEvents.get(ctx, 'e1');
    expect(asCore).toMatchObject({ reason: 'ScaledUp', reportingComponent: 'example.com/widget-controller' });
    expect(asCore.metadata.resourceVersion).toBe(object.metadata.resourceVersion);
  });

  it('serves a core event through events.k8s.io/v1, in lists and watches', async () => {
    await coreEvents.create(ctx, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'old', namespace: 'ns' },
      involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p' },
      reason: 'Pulled',
      message: 'pulled the image',
      source: { component: 'kubelet' },
      count: 2,
    });
    expect(await events.get(ctx, 'old')).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      note: 'pulled the image',
      deprecatedCount: 2,
      regarding: { name: 'p' },
    });
    const list = await events.list(ctx);
    expect(list.items.map((e) => [e.apiVersion, e.metadata.name])).toEqual([['events.k8s.io/v1', 'old']]);
    const watch = await events.watch(ctx, { resourceVersion: list.metadata.resourceVersion });
    await events.create(ctx, newEvent('e2'));
    const it = watch[Symbol.asyncIterator]();
    const ev = (await it.next()).value;
    watch.stop();
    expect(ev.type).toBe('ADDED');
    expect(ev.object).toMatchObject({ apiVersion: 'events.k8s.io/v1', metadata: { name: 'e2' }, note: 'scaled up to 3' });
  });

  it('validates a create with kube strict rules, in its words and core field paths', async () => {
    const err = await invalid(
      events.create(
        ctx,
        newEvent('bad', {
          eventTime: undefined,
          reportingController: '',
          action: 'a'.repeat(129),
          type: 'Odd',
          note: 'n'.repeat(1025),
          deprecatedCount: 3,
          series: { count: 1 },
        }),
      ),
    );
    expect(err.message).toBe(
      'Event.events.k8s.io "bad" is invalid: [series.count: Invalid value: "": should be at least 2, series.lastObservedTime: Required value, eventTime: Required value, type: Invalid value: "": has invalid value: Odd, count: Invalid value: "": needs to be unset]',
    );
    const strict = await invalid(
      events.create(ctx, newEvent('bad', { reportingController: '', action: 'a'.repeat(129), note: 'n'.repeat(1025) })),
    );
    expect(strict.message).toBe(
      "Event.events.k8s.io \"bad\" is invalid: [reportingController: Required value, reportingController: Invalid value: \"\": name part must be non-empty, reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), action: Invalid value: \"\": can have at most 128 characters, message: Invalid value: \"\": can have at most 1024 characters]",
    );
  });

  it('refuses deprecated timestamps Go could not decode (400)', async () => {
    const err = (await events.create(ctx, newEvent('bad', { deprecatedLastTimestamp: 'garbage' })).catch((e: unknown) => e)) as StatusError;
    expect(err.code).toBe(400);
    expect(err.message).toBe(
      'Event in version "v1" cannot be handled as a Event: parsing time "garbage" as "2006-01-02T15:04:05Z07:00": cannot parse "garbage" as "2006"',
    );
  });

  it('keeps everything but the series immutable on update', async () => {
    const { object } = await events.create(ctx, newEvent('e3'));
    const err = await invalid(events.update(ctx, 'e3', { ...object, note: 'changed', reason: 'Other' }));
    expect(err.message).toBe(
      'Event.events.k8s.io "e3" is invalid: [reason: Invalid value: "Other": field is immutable, message: Invalid value: "changed": field is immutable]',
    );
    const series = { count: 2, lastObservedTime: '2026-01-02T03:05:00.000000Z' };
    const { object: updated } = await events.update(ctx, 'e3', { ...object, series });
    expect(updated.series).toEqual(series);
    expect((await coreEvents.get(ctx, 'e3')).series).toEqual(series);
  });

  it('selects by label and field, and deletes the one stored object for both APIs', async () => {
    await events.create(ctx, newEvent('keep', { metadata: { name: 'keep', namespace: 'ns', labels: { app: 'a' } } }));
    await events.create(ctx, newEvent('drop', { metadata: { name: 'drop', namespace: 'ns', labels: { app: 'b' } } }));
    const byLabel = await events.list(ctx, { labelSelector: 'app=a' });
    expect(byLabel.items.map((e) => e.metadata.name)).toEqual(['keep']);
    const byField = await events.list(ctx, { fieldSelector: 'metadata.name=drop' });
    expect(byField.items.map((e) => e.metadata.name)).toEqual(['drop']);
    const { object } = await events.delete(ctx, 'drop');
    expect(object).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'scaled up to 3' });
    const gone = await coreEvents.get(ctx, 'drop').catch((e: StatusError) => e.code);
    expect(gone).toBe(404);
    expect((await coreEvents.list(ctx)).items.map((e) => e.metadata.name)).toEqual(['keep']);
  });

  it('prints the core event columns', async () => {
    const { object } = await events.create(ctx, newEvent('e4'));
    const table = tableConvertorFor(EventsV1Event).convert(object);
    expect((table.columnDefinitions ?? []).filter((c) => c.priority === 0).map((c) => c.name)).toEqual([
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Message',
    ]);
    const cell = (name: string) => table.rows[0]?.cells[(table.columnDefinitions ?? []).findIndex((c) => c.name === name)];
    expect(['Type', 'Reason', 'Object', 'Message'].map(cell)).toEqual(['Normal', 'ScaledUp', 'widget/w', 'scaled up to 3']);
  });
});
