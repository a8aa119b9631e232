import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { decodeKubernetesProtobuf, encodeKubernetesProtobuf, supportsKubernetesProtobuf } from './codec.ts';
import { kubeType } from './schema.ts';

/** Wraps a message in the `k8s\0` + runtime.Unknown envelope, as client-go sends it. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const type = kubeType('Unknown');
  const body = type.encode(type.fromObject({ typeMeta: { apiVersion, kind }, raw })).finish();
  return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...body]);
}

/** A length-delimited field written by hand (field numbers of the upstream .proto, not of schema.ts). */
const bytesField = (w: protobuf.Writer, field: number, build: (w: protobuf.Writer) => void) => {
  w.uint32((field << 3) | 2).fork();
  build(w);
  w.ldelim();
};

describe('protobuf of coordination.k8s.io/v1 Lease and events.k8s.io/v1 Event', () => {
  it('knows both kinds', () => {
    expect(supportsKubernetesProtobuf('coordination.k8s.io/v1', 'Lease')).toBe(true);
    expect(supportsKubernetesProtobuf('events.k8s.io/v1', 'Event')).toBe(true);
  });

  it("decodes a Lease by coordination/v1's field numbers, MicroTimes with six digits", () => {
    const w = protobuf.Writer.create();
    bytesField(w, 1, (m) => m.uint32((1 << 3) | 2).string('lease-a'));
    bytesField(w, 2, (s) => {
      s.uint32((1 << 3) | 2).string('node-1');
      s.uint32(2 << 3).int32(15);
      bytesField(s, 3, (t) =>
        t
          .uint32(1 << 3)
          .int64(1767225600)
          .uint32(2 << 3)
          .int32(123456000),
      );
      bytesField(s, 4, (t) => t.uint32(1 << 3).int64(1767225610));
      s.uint32(5 << 3).int32(0);
      s.uint32((6 << 3) | 2).string('OldestEmulationVersion');
      s.uint32((7 << 3) | 2).string('node-2');
    });
    const obj = decodeKubernetesProtobuf(envelope('coordination.k8s.io/v1', 'Lease', w.finish()));
    expect(obj).toEqual({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'lease-a' },
      spec: {
        holderIdentity: 'node-1',
        leaseDurationSeconds: 15,
        acquireTime: '2026-01-01T00:00:00.123456Z',
        renewTime: '2026-01-01T00:00:10.000000Z',
        // A pointer in Go: zero but present stays.
        leaseTransitions: 0,
        strategy: 'OldestEmulationVersion',
        preferredHolder: 'node-2',
      },
    });
    expect(decodeKubernetesProtobuf(encodeKubernetesProtobuf(obj))).toEqual(obj);
  });

  it("decodes an events.k8s.io/v1 Event by events/v1's field numbers and round-trips it", () => {
    const w = protobuf.Writer.create();
    bytesField(w, 1, (m) => m.uint32((1 << 3) | 2).string('e'));
    bytesField(w, 2, (t) =>
      t
        .uint32(1 << 3)
        .int64(1767225600)
        .uint32(2 << 3)
        .int32(1000),
    );
    w.uint32((4 << 3) | 2).string('example.com/ctrl');
    w.uint32((5 << 3) | 2).string('ctrl-0');
    w.uint32((6 << 3) | 2).string('Scale');
    w.uint32((7 << 3) | 2).string('ScaledUp');
    bytesField(w, 8, (r) => r.uint32((3 << 3) | 2).string('w'));
    w.uint32((10 << 3) | 2).string('scaled');
    w.uint32((11 << 3) | 2).string('Normal');
    w.uint32(15 << 3).int32(2);
    const obj = decodeKubernetesProtobuf(envelope('events.k8s.io/v1', 'Event', w.finish()));
    expect(obj).toEqual({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e' },
      eventTime: '2026-01-01T00:00:00.000001Z',
      reportingController: 'example.com/ctrl',
      reportingInstance: 'ctrl-0',
      action: 'Scale',
      reason: 'ScaledUp',
      regarding: { name: 'w' },
      note: 'scaled',
      type: 'Normal',
      deprecatedSource: {},
      deprecatedCount: 2,
    });
    const full = { ...obj, series: { count: 3, lastObservedTime: '2026-01-01T00:00:01.500000Z' }, related: { kind: 'Pod', name: 'p' } };
    expect(decodeKubernetesProtobuf(encodeKubernetesProtobuf(full))).toEqual(full);
  });
});
