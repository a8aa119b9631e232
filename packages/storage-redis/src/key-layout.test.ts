import { describe, expect, it } from 'vitest';
import { keyLayout } from './key-layout.ts';
import { CREATE, INIT, LIST } from './lua-scripts.ts';

describe('keyLayout', () => {
  it('puts every key under "<prefix>:"', () => {
    const l = keyLayout('kapi');
    expect([l.rev, l.compacted, l.epoch, l.live, l.all, l.log, l.ttl, l.object('/registry/widgets/ns/a')]).toEqual([
      'kapi:rev',
      'kapi:compacted',
      'kapi:epoch',
      'kapi:live',
      'kapi:all',
      'kapi:log',
      'kapi:ttl',
      'kapi:o:/registry/widgets/ns/a',
    ]);
    expect(() => keyLayout('')).toThrow(/prefix/);
  });

  it('is the layout the Lua scripts build', () => {
    for (const name of ['rev', 'compacted', 'epoch', 'live', 'all', 'log', 'ttl']) expect(INIT.lua).toContain(`P .. ':${name}'`);
    expect(CREATE.lua).toContain(`P .. ':o:' .. k`);
    // The range end is the byte 0xFF after the prefix (Lua's decimal escape), not a UTF-8 encoded U+00FF.
    expect(LIST.lua).toContain(String.raw`'\255'`);
    expect(CREATE.sha).toMatch(/^[0-9a-f]{40}$/);
  });
});
