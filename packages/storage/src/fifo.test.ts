import { describe, expect, it } from 'vitest';
import { Fifo } from './fifo.ts';

describe('Fifo', () => {
  it('gives values back in order, interleaved with pushes, across compactions', () => {
    const q = new Fifo<number>();
    const model: number[] = [];
    let next = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 97; i++) {
        q.push(next);
        model.push(next++);
      }
      for (let i = 0; i < 60 + (round % 40); i++) expect(q.shift()).toBe(model.shift());
      expect(q.length).toBe(model.length);
    }
    while (model.length) expect(q.shift()).toBe(model.shift());
    expect(q.length).toBe(0);
    expect(q.shift()).toBeUndefined();
  });

  it('clear empties it', () => {
    const q = new Fifo<string>();
    q.push('a');
    q.push('b');
    q.clear();
    expect(q.length).toBe(0);
    expect(q.shift()).toBeUndefined();
    q.push('c');
    expect(q.shift()).toBe('c');
  });
});
