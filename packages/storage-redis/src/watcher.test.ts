import { parseLabelSelector } from '@kapi/apimachinery';
import { WatchQueue } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { LogChange } from './log-change.ts';
import { eventFor, type Watcher } from './watcher.ts';

function watcher(key: string, recursive: boolean, selector?: string): Watcher {
  const label = selector === undefined ? undefined : parseLabelSelector(selector);
  return {
    queue: new WatchQueue(),
    key,
    recursive,
    pred: label && { label },
    filtered: label !== undefined,
    progressNotify: false,
    lastRev: 0,
    state: 'live',
    buffer: undefined,
    lastSentAt: 0,
  };
}

const v = (app: string) => JSON.stringify({ metadata: { name: 'a', labels: { app } } });
const brief = (w: Watcher, c: LogChange) => {
  const e = eventFor(w, c);
  return e && `${e.type} ${e.type === 'ERROR' ? '' : `${e.object.metadata.labels?.app} ${e.object.metadata.resourceVersion}`}`;
};

describe('eventFor', () => {
  it('maps creates, updates and deletes to ADDED, MODIFIED and DELETED (the last state at the delete revision)', () => {
    const w = watcher('/r/', true);
    expect(brief(w, new LogChange(2, '/r/a', v('web'), undefined))).toBe('ADDED web 2');
    expect(brief(w, new LogChange(3, '/r/a', v('db'), v('web')))).toBe('MODIFIED db 3');
    expect(brief(w, new LogChange(4, '/r/a', undefined, v('db')))).toBe('DELETED db 4');
  });

  it('keeps to its range: a recursive watch its subtree, a single-key watch that key', () => {
    const change = new LogChange(2, '/r/ab', v('web'), undefined);
    expect(eventFor(watcher('/r/a/', true), change)).toBeUndefined();
    expect(eventFor(watcher('/r/a', false), change)).toBeUndefined();
    expect(eventFor(watcher('/r/ab', false), change)?.type).toBe('ADDED');
  });

  it('with a selector: starting to match is ADDED, stopping is DELETED with the old object at the new revision', () => {
    const w = watcher('/r/', true, 'app=web');
    expect(brief(w, new LogChange(2, '/r/a', v('db'), undefined))).toBeUndefined();
    expect(brief(w, new LogChange(3, '/r/a', v('web'), v('db')))).toBe('ADDED web 3');
    expect(brief(w, new LogChange(4, '/r/a', v('web'), v('web')))).toBe('MODIFIED web 4');
    expect(brief(w, new LogChange(5, '/r/a', v('db'), v('web')))).toBe('DELETED web 5');
    expect(brief(w, new LogChange(6, '/r/a', undefined, v('db')))).toBeUndefined();
  });
});
