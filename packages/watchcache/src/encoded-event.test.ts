import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import { deepFreeze } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { encodedEvent, encodedObject, encodingMemoBytes, onEncode, setEncodingMemoLimit } from './encoded-event.ts';

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('encodedEvent', () => {
  it('is the JSON watch line, made once per frozen object whatever the event type', () => {
    const obj = deepFreeze<KubeObject>({ apiVersion: 'v1', kind: 'Widget', metadata: { name: 'é', resourceVersion: '7' } });
    let encodes = 0;
    const off = onEncode(() => encodes++);
    const added: WatchEvent = Object.freeze({ type: 'ADDED', object: obj });
    const modified: WatchEvent = Object.freeze({ type: 'MODIFIED', object: obj });
    const line = encodedEvent(added);
    expect(text(line)).toBe(`{"type":"ADDED","object":${JSON.stringify(obj)}}\n`);
    expect(encodedEvent(added)).toBe(line);
    expect(text(encodedEvent(modified))).toBe(`{"type":"MODIFIED","object":${JSON.stringify(obj)}}\n`);
    expect(encodedObject(obj)).toBe(encodedObject(obj));
    expect(encodes).toBe(1);
    off();
  });

  it('encodes mutable values every time (they may have changed)', () => {
    const obj: KubeObject = { metadata: { name: 'a' } };
    const ev: WatchEvent = { type: 'ADDED', object: obj };
    let encodes = 0;
    const off = onEncode(() => encodes++);
    expect(text(encodedEvent(ev))).toContain('"name":"a"');
    obj.metadata.name = 'b';
    expect(text(encodedEvent(ev))).toContain('"name":"b"');
    expect(encodes).toBe(2);
    off();
    encodedObject(obj);
    expect(encodes).toBe(2);
  });

  it('keeps encodings within a byte limit, forgetting the oldest first and encoding them again when asked', () => {
    const objs = Array.from({ length: 10 }, (_, i) =>
      deepFreeze<KubeObject>({
        apiVersion: 'v1',
        kind: 'Widget',
        metadata: { name: `w-${i}`, resourceVersion: '1' },
        data: 'x'.repeat(100),
      }),
    );
    const size = encodedObject(objs[0] as KubeObject).length;
    try {
      setEncodingMemoLimit(0);
      expect(encodingMemoBytes()).toBe(0);
      setEncodingMemoLimit(4 * size);
      let encodes = 0;
      const off = onEncode(() => encodes++);
      const first = objs.map((o) => encodedObject(o));
      expect(encodes).toBe(10);
      expect(encodingMemoBytes()).toBeLessThanOrEqual(4 * size);
      // The newest four are still shared; the oldest were forgotten and are made again (equal bytes, a new encoding).
      for (let i = 6; i < 10; i++) expect(encodedObject(objs[i] as KubeObject)).toBe(first[i]);
      expect(encodes).toBe(10);
      const again = encodedObject(objs[0] as KubeObject);
      expect(again).not.toBe(first[0]);
      expect(again).toEqual(first[0]);
      expect(encodes).toBe(11);
      off();
    } finally {
      setEncodingMemoLimit();
    }
  });
});
