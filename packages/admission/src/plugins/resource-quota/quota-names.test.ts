import { describe, expect, it } from 'vitest';
import { countedResource, objectCountName, objectCountNames, storeName } from './quota-names.ts';

describe('quota resource names', () => {
  it('names object counts as kube does, with the legacy core names', () => {
    expect(objectCountName({ group: '', resource: 'configmaps' })).toBe('count/configmaps');
    expect(objectCountName({ group: 'apps', resource: 'deployments' })).toBe('count/deployments.apps');
    expect(objectCountNames({ group: '', resource: 'secrets' })).toEqual(['count/secrets', 'secrets']);
    expect(objectCountNames({ group: '', resource: 'events' })).toEqual(['count/events']);
  });

  it('reads the resource back from a name: the group is all after the first dot', () => {
    expect(countedResource('count/widgets.example.kapi.dev')).toEqual({ group: 'example.kapi.dev', resource: 'widgets' });
    expect(countedResource('count/configmaps')).toEqual({ group: '', resource: 'configmaps' });
    expect(countedResource('services')).toEqual({ group: '', resource: 'services' });
    expect(countedResource('pods')).toBeUndefined();
    expect(countedResource('requests.cpu')).toBeUndefined();
    expect(storeName({ group: 'apps', resource: 'deployments' })).toBe('deployments.apps');
  });
});
