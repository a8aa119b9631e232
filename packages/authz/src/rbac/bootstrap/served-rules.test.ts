import { describe, expect, it } from 'vitest';
import { restrictRulesToServed, type ServedResource } from './served-rules.ts';

const served: ServedResource[] = [
  { group: '', resource: 'events' },
  { group: '', resource: 'serviceaccounts', subresources: ['token'] },
  { group: 'apps', resource: 'deployments', subresources: ['scale', 'status'] },
  { group: 'example.kapi.dev', resource: 'widgets', subresources: ['scale'] },
];

describe('restrictRulesToServed', () => {
  it('drops the resources a rule names that are not served, and a rule left with none', () => {
    expect(
      restrictRulesToServed(
        [
          { verbs: ['get'], apiGroups: [''], resources: ['events', 'pods', 'serviceaccounts/token', 'serviceaccounts/status'] },
          { verbs: ['get'], apiGroups: ['batch'], resources: ['jobs'] },
          { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
        ],
        served,
      ),
    ).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['events', 'serviceaccounts/token'] }]);
  });

  it('keeps wildcards that match something served', () => {
    expect(
      restrictRulesToServed(
        [
          { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
          { verbs: ['list'], apiGroups: ['*'], resources: ['events', 'jobs'] },
          { verbs: ['update'], apiGroups: ['apps', 'batch'], resources: ['*/scale'] },
          { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/*'] },
          { verbs: ['get'], apiGroups: ['example.kapi.dev'], resources: ['*'] },
          { verbs: ['get'], apiGroups: ['batch'], resources: ['*'] },
        ],
        served,
      ),
    ).toEqual([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['list'], apiGroups: ['*'], resources: ['events'] },
      { verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] },
      { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/*'] },
      { verbs: ['get'], apiGroups: ['example.kapi.dev'], resources: ['*'] },
    ]);
  });

  it('splits a rule whose groups keep different resources, so it grants no pair that is not served', () => {
    expect(
      restrictRulesToServed(
        [{ verbs: ['get'], apiGroups: ['', 'apps', 'extensions'], resources: ['events', 'deployments'], resourceNames: ['a'] }],
        served,
      ),
    ).toEqual([
      { verbs: ['get'], apiGroups: [''], resources: ['events'], resourceNames: ['a'] },
      { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['a'] },
    ]);
    const both: ServedResource[] = [...served, { group: 'extensions', resource: 'deployments' }];
    expect(restrictRulesToServed([{ verbs: ['get'], apiGroups: ['apps', 'extensions'], resources: ['deployments'] }], both)).toEqual([
      { verbs: ['get'], apiGroups: ['apps', 'extensions'], resources: ['deployments'] },
    ]);
  });

  it('keeps non-resource rules as they are, and nothing served keeps only them', () => {
    const rules = [
      { verbs: ['get'], nonResourceURLs: ['/healthz', '/version'] },
      { verbs: ['get'], apiGroups: [''], resources: ['events'] },
    ];
    expect(restrictRulesToServed(rules, [])).toEqual([rules[0]]);
  });

  it('keeps a rule for every group and resource whatever is served, since kinds may be served later', () => {
    const everything = [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ];
    expect(restrictRulesToServed(everything, [])).toEqual(everything);
  });

  it('does not change the rules it is given', () => {
    const rules = [{ verbs: ['get'], apiGroups: [''], resources: ['events', 'pods'] }];
    restrictRulesToServed(rules, served);
    expect(rules[0]?.resources).toEqual(['events', 'pods']);
  });
});
