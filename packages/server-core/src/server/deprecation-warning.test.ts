import { defineResource } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { testServers } from '../test-support/test-servers.ts';
import { deprecationWarning } from './deprecation-warning.ts';

const schema = z.object({ spec: z.looseObject({}).optional() });
const Thing = defineResource({
  group: 'example.kapi.dev',
  kind: 'Thing',
  plural: 'things',
  namespaced: false,
  versions: [
    { name: 'v1alpha1', deprecated: true },
    { name: 'v1beta1', deprecated: true, deprecationWarning: 'example.kapi.dev/v1beta1 Thing is going away; move to v1' },
    { name: 'v1', storage: true },
    { name: 'v2alpha1', deprecated: true },
  ],
  schema,
});
const version = (name: string) => Thing.version(name) as NonNullable<ReturnType<typeof Thing.version>>;

describe('deprecationWarning', () => {
  it('is the version’s own text, else kube’s default naming the newest newer version that is served and not deprecated', () => {
    expect(deprecationWarning(Thing, version('v1beta1'))).toBe('example.kapi.dev/v1beta1 Thing is going away; move to v1');
    expect(deprecationWarning(Thing, version('v1alpha1'))).toBe(
      'example.kapi.dev/v1alpha1 Thing is deprecated; use example.kapi.dev/v1 Thing',
    );
    // kube's priority puts GA above any alpha: v1 is newer than v2alpha1.
    expect(deprecationWarning(Thing, version('v2alpha1'))).toBe(
      'example.kapi.dev/v2alpha1 Thing is deprecated; use example.kapi.dev/v1 Thing',
    );
    // Nothing newer that is served and not deprecated: the bare message.
    const Old = defineResource({
      group: '',
      kind: 'Old',
      plural: 'olds',
      namespaced: false,
      versions: [{ name: 'v1', deprecated: true }],
      schema,
    });
    expect(deprecationWarning(Old, Old.storageVersion)).toBe('v1 Old is deprecated');
  });
});

const start = testServers();

describe('requests to a deprecated version', () => {
  it('carry kube’s Warning header, every verb; other versions none', async () => {
    const { url } = await start({ resources: [Thing] });
    const post = await fetch(`${url}/apis/example.kapi.dev/v1alpha1/things`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'example.kapi.dev/v1alpha1', kind: 'Thing', metadata: { name: 'a' } }),
    });
    expect(post.status).toBe(201);
    expect(post.headers.get('warning')).toBe('299 - "example.kapi.dev/v1alpha1 Thing is deprecated; use example.kapi.dev/v1 Thing"');
    const list = await fetch(`${url}/apis/example.kapi.dev/v1beta1/things`);
    expect(list.headers.get('warning')).toBe('299 - "example.kapi.dev/v1beta1 Thing is going away; move to v1"');
    const current = await fetch(`${url}/apis/example.kapi.dev/v1/things/a`);
    expect(current.status).toBe(200);
    expect(current.headers.get('warning')).toBeNull();
  });
});
