import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import { deepFreeze } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { encodedEvent, encodedObject, onEncode } from './encoded-event.ts';

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
});
