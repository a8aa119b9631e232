// Cases from structured-merge-diff's fieldpath/set_test.go TestFilterByPattern, and the exclude filter.
import { describe, expect, it } from 'vitest';
import { makePath as P } from './path.ts';
import { keyElement as K, valueElement as V } from './path-element.ts';
import { FieldSet } from './set.ts';
import { MATCH_ANY_ELEMENT as ANY, excludeSetFilter, type FieldSetFilter, includeMatcherFilter, SetMatcher } from './set-matcher.ts';

const NS = (...paths: ReturnType<typeof P>[]) => FieldSet.fromPaths(paths);
const resources = includeMatcherFilter(SetMatcher.prefix('spec', 'containers', ANY, 'resources'));
const k12 = K({ key1: 'value1', key2: 'value2' });

describe('includeMatcherFilter (TestFilterByPattern)', () => {
  const table: [string, FieldSet, FieldSetFilter, FieldSet][] = [
    [
      'container resize fields: exact match',
      NS(
        P('spec'),
        P('spec', 'containers'),
        P('spec', 'containers', 0),
        P('spec', 'containers', 0, 'resources'),
        P('spec', 'containers', 0, 'resources', 'limits'),
        P('spec', 'containers', 0, 'resources', 'limits', 'cpu'),
        P('spec', 'containers', 0, 'resources', 'requests'),
        P('spec', 'containers', 0, 'resources', 'requests', 'cpu'),
        P('spec', 'containers', 0, 'resources', 'claims'),
        P('spec', 'containers', 0, 'resources', 'claims', 0),
        P('spec', 'containers', 0, 'resources', 'claims', 0, 'name'),
        P('spec', 'containers', 0, 'resources', 'claims', 0, 'request'),
        P('spec', 'containers', 0, 'resources', 'claims', 1),
        P('spec', 'containers', 0, 'resources', 'claims', 1, 'name'),
        P('spec', 'containers', 0, 'resources', 'claims', 1, 'request'),
        P('spec', 'containers', 1),
        P('spec', 'containers', 1, 'resources'),
        P('spec', 'containers', 1, 'resources', 'limits'),
        P('spec', 'containers', 1, 'resources', 'limits', 'cpu'),
      ),
      resources,
      NS(
        P('spec'),
        P('spec', 'containers'),
        P('spec', 'containers', 0),
        P('spec', 'containers', 0, 'resources'),
        P('spec', 'containers', 0, 'resources', 'limits'),
        P('spec', 'containers', 0, 'resources', 'limits', 'cpu'),
        P('spec', 'containers', 0, 'resources', 'requests'),
        P('spec', 'containers', 0, 'resources', 'requests', 'cpu'),
        P('spec', 'containers', 0, 'resources', 'claims'),
        P('spec', 'containers', 0, 'resources', 'claims', 0),
        P('spec', 'containers', 0, 'resources', 'claims', 0, 'name'),
        P('spec', 'containers', 0, 'resources', 'claims', 0, 'request'),
        P('spec', 'containers', 0, 'resources', 'claims', 1),
        P('spec', 'containers', 0, 'resources', 'claims', 1, 'name'),
        P('spec', 'containers', 0, 'resources', 'claims', 1, 'request'),
        P('spec', 'containers', 1),
        P('spec', 'containers', 1, 'resources'),
        P('spec', 'containers', 1, 'resources', 'limits'),
        P('spec', 'containers', 1, 'resources', 'limits', 'cpu'),
      ),
    ],
    ['container resize fields: filter status and metadata', NS(P('spec'), P('status'), P('metadata')), resources, NS(P('spec'))],
    [
      'container resize fields: filter non-container spec fields',
      NS(P('spec'), P('spec', 'volumes'), P('spec', 'hostNetwork')),
      resources,
      NS(P('spec')),
    ],
    [
      'container resize fields: filter non-resource container fields',
      NS(
        P('spec'),
        P('spec', 'containers'),
        P('spec', 'containers', 0),
        P('spec', 'containers', 0, 'image'),
        P('spec', 'containers', 0, 'workingDir'),
        P('spec', 'containers', 0, 'resources'),
      ),
      resources,
      NS(P('spec'), P('spec', 'containers'), P('spec', 'containers', 0), P('spec', 'containers', 0, 'resources')),
    ],
    [
      'filter listMap key',
      NS(
        P('spec'),
        P('spec', 'listMap', k12),
        P('spec', 'listMap', k12, 'field'),
        P('spec', 'listMap', K({ key1: 'valueX', key2: 'valueY' }), 'field'),
      ),
      includeMatcherFilter(SetMatcher.prefix('spec', 'listMap', k12)),
      NS(P('spec'), P('spec', 'listMap', k12), P('spec', 'listMap', k12, 'field')),
    ],
    [
      'filter value',
      NS(P('spec'), P('spec', 'set', V('v1')), P('spec', 'set', V('v2'))),
      includeMatcherFilter(SetMatcher.prefix('spec', 'set', V('v1'))),
      NS(P('spec'), P('spec', 'set', V('v1'))),
    ],
    [
      'filter by index',
      NS(
        P('spec'),
        P('spec', 'list'),
        P('spec', 'list', 0),
        P('spec', 'list', 0, 'value'),
        P('spec', 'list', 1),
        P('spec', 'list', 1, 'value'),
      ),
      includeMatcherFilter(SetMatcher.prefix('spec', 'list', 1, 'value')),
      NS(P('spec'), P('spec', 'list'), P('spec', 'list', 1), P('spec', 'list', 1, 'value')),
    ],
    [
      'multiple index matchers',
      NS(
        P('spec'),
        P('spec', 'list'),
        P('spec', 'list', 0),
        P('spec', 'list', 0, 'value'),
        P('spec', 'list', 1),
        P('spec', 'list', 1, 'value'),
        P('spec', 'list', 2),
        P('spec', 'list', 2, 'value'),
      ),
      includeMatcherFilter(SetMatcher.prefix('spec', 'list', 0, 'value'), SetMatcher.prefix('spec', 'list', 1, 'value')),
      NS(
        P('spec'),
        P('spec', 'list'),
        P('spec', 'list', 0),
        P('spec', 'list', 0, 'value'),
        P('spec', 'list', 1),
        P('spec', 'list', 1, 'value'),
      ),
    ],
    [
      'multiple field matchers',
      NS(
        P('spec'),
        P('spec', 'f1'),
        P('spec', 'f1', 'f11'),
        P('spec', 'f2'),
        P('spec', 'f2', 'f21'),
        P('spec', 'f3'),
        P('spec', 'f3', 'f31'),
      ),
      includeMatcherFilter(SetMatcher.prefix('spec', 'f1'), SetMatcher.prefix('spec', 'f3')),
      NS(P('spec'), P('spec', 'f1'), P('spec', 'f1', 'f11'), P('spec', 'f3'), P('spec', 'f3', 'f31')),
    ],
    [
      'wildcard takes precedence',
      NS(
        P('spec'),
        P('spec', 'list'),
        P('spec', 'list', 0),
        P('spec', 'list', 0, 'f1'),
        P('spec', 'list', 0, 'f2'),
        P('spec', 'list', 1),
        P('spec', 'list', 1, 'f1'),
        P('spec', 'list', 1, 'f2'),
        P('spec', 'list', 2),
        P('spec', 'list', 2, 'f1'),
        P('spec', 'list', 2, 'f2'),
      ),
      includeMatcherFilter(SetMatcher.prefix('spec', 'list', ANY, 'f1'), SetMatcher.prefix('spec', 'list', 1, 'f2')),
      NS(
        P('spec'),
        P('spec', 'list'),
        P('spec', 'list', 0),
        P('spec', 'list', 0, 'f1'),
        P('spec', 'list', 1),
        P('spec', 'list', 1, 'f1'),
        P('spec', 'list', 2),
        P('spec', 'list', 2, 'f1'),
      ),
    ],
  ];
  it.each(table)('%s', (_name, input, filter, want) => {
    const got = filter(input);
    expect(`\n${got}\n`).toBe(`\n${want}\n`);
    expect(got.equals(want)).toBe(true);
  });

  it('no matchers keeps everything; a key with no fields is refused', () => {
    const s = NS(P('a', 'b'), P('c'));
    expect(includeMatcherFilter()(s)).toBe(s);
    expect(SetMatcher.any().filter(s)).toBe(s);
    expect(() => SetMatcher.prefix('a', K({}))).toThrow('associative list key type path elements must have at least one key (got zero)');
  });
});

describe('excludeSetFilter', () => {
  it('removes the excluded paths and everything under them (reset fields)', () => {
    const resetStatus = excludeSetFilter(NS(P('status')));
    expect(
      resetStatus(
        NS(P('spec', 'replicas'), P('status'), P('status', 'replicas'), P('status', 'conditions', K({ type: 'Ready' }), 'status')),
      ).toString(),
    ).toBe('.spec.replicas');
  });
});
