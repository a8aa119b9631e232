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
});
