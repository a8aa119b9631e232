import { describe, expect, it } from 'vitest';
import { parseSimplePath, readFieldPath } from './simple-path.ts';

describe('simple JSONPaths', () => {
  it('parses dotted field paths only', () => {
    expect(parseSimplePath('.spec.replicas')).toEqual(['spec', 'replicas']);
    expect(parseSimplePath('spec.replicas')).toBeUndefined();
    expect(parseSimplePath('.spec.items[0]')).toBeUndefined();
    expect(parseSimplePath('.')).toBeUndefined();
    expect(parseSimplePath('.spec..x')).toBeUndefined();
  });

  it('reads a value, or undefined when a step is missing', () => {
    const obj = { spec: { replicas: 3, list: [1] } };
    expect(readFieldPath(obj, '.spec.replicas')).toBe(3);
    expect(readFieldPath(obj, '.spec.nope.x')).toBeUndefined();
    expect(readFieldPath(obj, '.spec.list.length')).toBeUndefined();
    expect(readFieldPath(obj, 'spec')).toBeUndefined();
  });

  it('reads own fields only: .spec.constructor of an object without one is undefined, with one its value', () => {
    expect(readFieldPath({ spec: {} }, '.spec.constructor')).toBeUndefined();
    expect(readFieldPath({ spec: {} }, '.spec.toString')).toBeUndefined();
    expect(readFieldPath(JSON.parse('{"spec":{"__proto__":{"a":1},"constructor":"c"}}'), '.spec.__proto__.a')).toBe(1);
    expect(readFieldPath(JSON.parse('{"spec":{"constructor":"c"}}'), '.spec.constructor')).toBe('c');
  });
});
