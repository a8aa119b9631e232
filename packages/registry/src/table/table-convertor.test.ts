import type { KubeObject, ObjectList } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigMap } from '../builtins/configmap.ts';
import { Event } from '../builtins/event.ts';
import { Namespace } from '../builtins/namespace.ts';
import { Secret } from '../builtins/secret.ts';
import { defineResource } from '../define-resource.ts';
import { ColumnPathError } from './column-path.ts';
import {
  AGE_COLUMN,
  CREATED_AT_COLUMN,
  OBJECT_META_CREATION_TIMESTAMP_DESCRIPTION,
  OBJECT_META_NAME_DESCRIPTION,
  tableConvertor,
  toTable,
} from './table-convertor.ts';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const clock = { now: () => NOW };
const ago = (ms: number) => new Date(NOW - ms).toISOString().replace('.000Z', 'Z');

const widgetSchema = z.object({
  spec: z.object({
    replicas: z.int(),
    ratio: z.number().optional(),
    paused: z.boolean().optional(),
    colour: z.string().optional(),
    ports: z.array(z.object({ name: z.string(), port: z.int() })).optional(),
  }),
  status: z
    .object({
      conditions: z.array(z.object({ type: z.string(), status: z.string() })).optional(),
      lastSync: z.string().optional(),
    })
    .optional(),
});

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1', schema: widgetSchema }],
  printerColumns: [
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', description: 'Desired replicas.' },
    { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
    { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Synced', type: 'date', jsonPath: '.status.lastSync' },
    { name: 'Colour', type: 'string', jsonPath: '.spec.colour', priority: 1, format: 'byte' },
    AGE_COLUMN,
  ],
});

const Gadget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: false,
  versions: [{ name: 'v1', schema: z.object({ spec: z.object({ size: z.int() }).optional() }) }],
});

function widget(name: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'example.kapi.dev/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7', creationTimestamp: ago(5 * 60_000), ...meta },
    spec: { replicas: 2, ratio: 0.5, paused: false, colour: 'red' },
    status: {
      conditions: [
        { type: 'Progressing', status: 'True' },
        { type: 'Ready', status: 'True' },
      ],
      lastSync: ago(90_000),
    },
    ...extra,
  };
}

function list(items: KubeObject[], metadata: ObjectList['metadata'] = { resourceVersion: '42' }): ObjectList {
  return { apiVersion: 'example.kapi.dev/v1', kind: 'WidgetList', metadata, items };
}

describe('toTable: columns', () => {
  it('gives a kind without printer columns Name and Age, as for a CRD without additionalPrinterColumns', () => {
    const t = toTable(
      Gadget,
      { apiVersion: 'example.kapi.dev/v1', kind: 'Gadget', metadata: { name: 'g1', creationTimestamp: ago(3 * 86_400_000) } },
      { clock },
    );
    expect(t.columnDefinitions).toEqual([
      { name: 'Name', type: 'string', format: 'name', description: OBJECT_META_NAME_DESCRIPTION, priority: 0 },
      { name: 'Age', type: 'date', format: '', description: OBJECT_META_CREATION_TIMESTAMP_DESCRIPTION, priority: 0 },
    ]);
    expect(t.rows[0]?.cells).toEqual(['g1', '3d']);
  });

  it('puts Name first, then the declared columns in order, and adds no Age of its own', () => {
    const t = toTable(Widget, widget('w1'), { clock });
    expect(t.columnDefinitions?.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['Replicas', 'integer', '', 0],
      ['Ratio', 'number', '', 0],
      ['Paused', 'boolean', '', 0],
      ['Ready', 'string', '', 0],
      ['Synced', 'date', '', 0],
      ['Colour', 'string', 'byte', 1],
      ['Age', 'date', '', 0],
    ]);
    const onlyDeclared = tableConvertor([{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }]);
    expect(onlyDeclared.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Replicas']);
  });

  it('describes a column by its description, or by its path as kube does', () => {
    const cols = toTable(Widget, widget('w1'), { clock }).columnDefinitions ?? [];
    expect(cols[1]?.description).toBe('Desired replicas.');
    expect(cols[2]?.description).toBe('Custom resource definition column (in JSONPath format): .spec.ratio');
  });

  it('keeps -o wide columns (priority > 0) for kubectl to filter', () => {
    const t = toTable(Widget, widget('w1'), { clock });
    expect(t.columnDefinitions?.find((c) => c.name === 'Colour')?.priority).toBe(1);
    expect(t.rows[0]?.cells[6]).toBe('red');
  });

  it('leaves out the headers on request (watch events after the first)', () => {
    const t = toTable(Widget, widget('w1'), { clock, noHeaders: true });
    expect(t.columnDefinitions).toBeNull();
    expect(t.rows[0]?.cells).toHaveLength(8);
  });

  it('rejects a printer column path it cannot read', () => {
    expect(() => tableConvertor([{ name: 'X', type: 'string', jsonPath: '.spec.ports[0:1:2]' }])).toThrow(ColumnPathError);
  });
});

describe('toTable: cells', () => {
  it('types cells per column', () => {
    const t = toTable(Widget, widget('w1'), { clock });
    expect(t.rows[0]?.cells).toEqual(['w1', 2, 0.5, false, 'True', '90s', 'red', '5m']);
  });

  it('gives null for what is missing (kubectl prints <none>)', () => {
    const bare = widget('w2', { spec: { replicas: 1 }, status: undefined });
    expect(toTable(Widget, bare, { clock }).rows[0]?.cells).toEqual(['w2', 1, null, null, null, null, null, '5m']);
    const noMeta = { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: {}, spec: { replicas: 0 } } as KubeObject;
    expect(toTable(Widget, noMeta, { clock }).rows[0]?.cells).toEqual(['', 0, null, null, null, null, null, null]);
  });

  it('keeps only values of the column’s type, except for string columns', () => {
    const c = tableConvertor([
      { name: 'I', type: 'integer', jsonPath: '.v.float' },
      { name: 'I2', type: 'integer', jsonPath: '.v.str' },
      { name: 'N', type: 'number', jsonPath: '.v.int' },
      { name: 'N2', type: 'number', jsonPath: '.v.bool' },
      { name: 'B', type: 'boolean', jsonPath: '.v.str' },
      { name: 'S', type: 'string', jsonPath: '.v.obj' },
      { name: 'S2', type: 'string', jsonPath: '.v.int' },
      { name: 'S3', type: 'string', jsonPath: '.v.bool' },
      { name: 'S4', type: 'string', jsonPath: '.v.nil' },
      { name: 'I3', type: 'integer', jsonPath: '.v.nil' },
      { name: 'S5', type: 'string', jsonPath: '.v.list[5]' },
    ]);
    const obj = {
      apiVersion: 'v1',
      kind: 'Thing',
      metadata: { name: 't' },
      v: { float: -2.7, str: 'true', int: 4, bool: true, obj: { b: [1], a: 'x' }, nil: null, list: [1] },
    };
    expect(c.convert(obj, { clock }).rows[0]?.cells).toEqual([
      't',
      -2,
      null,
      4,
      null,
      null,
      '{"a":"x","b":[1]}',
      '4',
      'true',
      '<no value>',
      null,
      null,
    ]);
  });

  it('formats date columns as ages, with kube’s placeholders', () => {
    const c = tableConvertor([{ name: 'When', type: 'date', jsonPath: '.when' }]);
    const cell = (when: unknown) => c.convert({ apiVersion: 'v1', kind: 'T', metadata: { name: 't' }, when }, { clock }).rows[0]?.cells[1];
    expect(cell(ago(0))).toBe('0s');
    expect(cell(ago(119_000))).toBe('119s');
    expect(cell(ago(125_000))).toBe('2m5s');
    expect(cell(ago(3 * 3_600_000 + 20 * 60_000))).toBe('3h20m');
    expect(cell(ago(50 * 3_600_000))).toBe('2d2h');
    expect(cell(ago(400 * 86_400_000))).toBe('400d');
    expect(cell(ago(1000 * 86_400_000))).toBe('2y270d');
    expect(cell(new Date(NOW + 60_000).toISOString())).toBe('<invalid>');
    expect(cell(new Date(NOW + 1500).toISOString())).toBe('0s');
    expect(cell('2025-06-01T13:00:00+02:00')).toBe('60m');
    expect(cell('')).toBe('<unknown>');
    expect(cell('0001-01-01T00:00:00Z')).toBe('<unknown>');
    expect(cell('last tuesday')).toBe('<invalid>');
    expect(cell(12345)).toBeNull();
  });

  it('measures ages from the real clock by default', () => {
    const t = toTable(Gadget, {
      apiVersion: 'example.kapi.dev/v1',
      kind: 'Gadget',
      metadata: { name: 'g', creationTimestamp: new Date().toISOString() },
    });
    expect(t.rows[0]?.cells[1]).toMatch(/^[01]s$/);
  });
});

describe('toTable: objects and metadata', () => {
  it('serves a PartialObjectMetadata per row by default', () => {
    const w = widget('w1', {}, { labels: { app: 'w' } });
    const t = toTable(Widget, w, { clock });
    expect(t.rows[0]?.object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: w.metadata });
    expect(toTable(Widget, w, { clock, includeObject: 'Metadata' }).rows[0]?.object).toEqual(t.rows[0]?.object);
  });

  it('serves the whole object with Object and null with None', () => {
    const w = widget('w1');
    expect(toTable(Widget, w, { clock, includeObject: 'Object' }).rows[0]?.object).toBe(w);
    expect(toTable(Widget, w, { clock, includeObject: 'None' }).rows[0]?.object).toBeNull();
  });

  it('converts a list to a row per item and copies its list metadata', () => {
    const l = list([widget('a'), widget('b'), widget('c')], {
      resourceVersion: '42',
      continue: 'tok',
      remainingItemCount: 0,
      selfLink: '/x',
    });
    const t = toTable(Widget, l, { clock, includeObject: 'None' });
    expect(t.metadata).toEqual({ resourceVersion: '42', continue: 'tok', remainingItemCount: 0 });
    expect(t.rows.map((r) => r.cells[0])).toEqual(['a', 'b', 'c']);
  });

  it('gives an empty list no rows, and a single object its resourceVersion', () => {
    expect(toTable(Widget, list([]), { clock })).toEqual({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '42' },
      columnDefinitions: expect.any(Array),
      rows: [],
    });
    expect(toTable(Widget, widget('w1', {}, { resourceVersion: '9' }), { clock }).metadata).toEqual({ resourceVersion: '9' });
    expect(toTable(Widget, list([], {}), { clock }).metadata).toEqual({});
  });

  it('serializes as kube-apiserver does', () => {
    const t = toTable(Widget, list([widget('w1')]), { clock, includeObject: 'None', noHeaders: true });
    expect(JSON.stringify(t)).toBe(
      '{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"42"},"columnDefinitions":null,"rows":[{"cells":["w1",2,0.5,false,"True","90s","red","5m"],"object":null}]}',
    );
  });

  it('compiles a definition’s columns once', () => {
    const a = toTable(Widget, widget('w1'), { clock });
    const b = toTable(Widget, widget('w1'), { clock });
    expect(a.columnDefinitions).toEqual(b.columnDefinitions);
    a.columnDefinitions?.push({ name: 'X', type: 'string', format: '', description: '', priority: 0 });
    expect(toTable(Widget, widget('w1'), { clock }).columnDefinitions).toHaveLength(8);
  });
});

describe('toTable: computed columns and the built-in kinds', () => {
  const clock = { now: () => Date.parse('2026-01-01T00:10:00Z') };
  const meta = { name: 'x', creationTimestamp: '2026-01-01T00:00:00Z' };

  it('takes a computed cell from `value`, and an empty one when it gives undefined', () => {
    const table = tableConvertor([
      { name: 'Keys', type: 'integer', jsonPath: '.data', value: (o) => Object.keys((o as { data?: object }).data ?? {}).length },
      { name: 'Nothing', type: 'string', jsonPath: '.spec', value: () => undefined },
      // kube's DefaultTableConvertor: a date column whose cell is the timestamp itself, not an age.
      { name: 'Created At', type: 'date', jsonPath: '.metadata.creationTimestamp', value: (o) => o.metadata.creationTimestamp },
    ]).convert({ apiVersion: 'v1', kind: 'Thing', metadata: meta, data: { a: '1', b: '2' } } as KubeObject, { clock });
    expect(table.rows[0]?.cells).toEqual(['x', 2, null, '2026-01-01T00:00:00Z']);
  });

  it("gives ConfigMap, Secret and Namespace kube-apiserver's built-in columns", () => {
    const cm = toTable(
      ConfigMap,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { a: '1' }, binaryData: { b: 'AA==' } } as KubeObject,
      { clock },
    );
    expect(cm.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(cm.rows[0]?.cells).toEqual(['x', 2, '10m']);
    const secret = toTable(
      Secret,
      { apiVersion: 'v1', kind: 'Secret', metadata: meta, type: 'Opaque', data: { k: 'dg==' } } as KubeObject,
      { clock },
    );
    expect(secret.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'Type', 'Data', 'Age']);
    expect(secret.rows[0]?.cells).toEqual(['x', 'Opaque', 1, '10m']);
    const ns = toTable(Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: meta, status: { phase: 'Active' } } as KubeObject, {
      clock,
    });
    expect(ns.rows[0]?.cells).toEqual(['x', 'Active', '10m']);
  });
});

describe("toTable: kube's Event table", () => {
  const now = Date.parse('2026-01-01T01:00:00Z');
  const clock = { now: () => now };
  const event = (extra: Record<string, unknown>) =>
    ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'w1.abc', namespace: 'default' },
      involvedObject: { kind: 'Widget', name: 'w1', fieldPath: 'spec' },
      reason: 'Scaled',
      message: ' scaled to 3 \n',
      type: 'Normal',
      ...extra,
    }) as KubeObject;

  it('has no Name column first, and computes Last Seen, Object, Source and Count as kubectl shows them', () => {
    const table = toTable(
      Event,
      event({
        firstTimestamp: '2026-01-01T00:00:00Z',
        lastTimestamp: '2026-01-01T00:55:00Z',
        count: 4,
        source: { component: 'widget-controller', host: 'node-1' },
      }),
      { clock },
    );
    expect(table.columnDefinitions?.map((c) => c.name)).toEqual([
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Subobject',
      'Source',
      'Message',
      'First Seen',
      'Count',
      'Name',
    ]);
    expect(table.columnDefinitions?.filter((c) => c.priority === 0).map((c) => c.name)).toEqual([
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Message',
    ]);
    expect(table.rows[0]?.cells).toEqual([
      '5m',
      'Normal',
      'Scaled',
      'widget/w1',
      'spec',
      'widget-controller, node-1',
      'scaled to 3',
      '60m',
      4,
      'w1.abc',
    ]);
  });

  it('falls back to eventTime, the series and the reporting controller, and counts an event seen once as 1', () => {
    const series = toTable(
      Event,
      event({
        eventTime: '2026-01-01T00:30:00.000000Z',
        series: { count: 7, lastObservedTime: '2026-01-01T00:59:30.000000Z' },
        reportingComponent: 'ctrl',
        reportingInstance: 'pod-1',
      }),
      { clock },
    );
    expect(series.rows[0]?.cells.slice(0, 1)).toEqual(['30s']);
    expect(series.rows[0]?.cells.slice(5, 9)).toEqual(['ctrl, pod-1', 'scaled to 3', '30m', 7]);
    const bare = toTable(Event, event({}), { clock });
    expect(bare.rows[0]?.cells[0]).toBe('<unknown>');
    expect(bare.rows[0]?.cells[8]).toBe(1);
  });
});

describe('CREATED_AT_COLUMN', () => {
  it("prints the creation time as Go's RFC 3339 in UTC, and Go's zero time when there is none", () => {
    const created = (creationTimestamp?: string) => ({ apiVersion: 'v1', kind: 'X', metadata: { name: 'a', creationTimestamp } });
    expect(CREATED_AT_COLUMN.value?.(created('2025-06-01T12:00:00.123Z'), NOW)).toBe('2025-06-01T12:00:00Z');
    expect(CREATED_AT_COLUMN.value?.(created(), NOW)).toBe('0001-01-01T00:00:00Z');
    expect(CREATED_AT_COLUMN.name).toBe('Created At');
  });
});
